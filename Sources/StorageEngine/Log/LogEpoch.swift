import CXXHash

/// A run of small commits made durable in the redo log rather than the file, from one
/// checkpoint to the next (see `Docs/Internals/RedoLog.md`).
///
/// A process keeps an epoch only while it holds the file's open lock exclusively (see
/// `ReaderTable`): no other process has the file open, so none can read or write a version the
/// file does not hold yet. Its logged versions live in this process's memory, as nodes held
/// under synthetic references (`PageStore.holdInMemory`), and in the log. Used under the write
/// lock only.
package final class LogEpoch: @unchecked Sendable {
    let log: RedoLog
    /// The durable header the epoch's first commit started from: the version a crash falls back
    /// to before replaying the log, and whose catalog, free list and commit record the
    /// checkpoint frees.
    let checkpoint: FileHeader
    /// Disk pages the logged commits replaced: kept from reuse until the checkpoint is
    /// durable, since recovery goes back to `checkpoint`.
    var freedOnDisk: [Extent] = []
    var commits = 0

    /// Logged commits after which the next commit is a checkpoint: about as often as SQLite's
    /// WAL checkpoints by default (every 1,000 pages, which one-row commits of a table with an
    /// index fill in 330-500 commits).
    static let commitsPerCheckpoint = 512
    /// The most log bytes an epoch writes (see `RedoLog.prepareChunk` for how the file is
    /// readied for them).
    static let logBytes: UInt64 = 1 << 20
    /// A transaction whose record is larger commits to the file: its pages cost about what its
    /// record would.
    static let largestRecord = 64 << 10

    init(log: RedoLog, checkpoint: FileHeader) {
        self.log = log
        self.checkpoint = checkpoint
    }

    /// Whether a record of `bytes` must wait for a checkpoint: the epoch is full.
    func isFull(forRecordOf bytes: Int) -> Bool {
        commits >= LogEpoch.commitsPerCheckpoint
            || log.tail + UInt64(RedoLog.recordHeaderSize + bytes + 8) > RedoLog.recordsStart + LogEpoch.logBytes
    }

    /// Names `header`, and with its file id the file: a log is replayed only onto the version
    /// it follows, in the file it was written for, never onto another file at the same path.
    static func fingerprint(of header: FileHeader) -> UInt64 {
        let bytes = header.encoded(forSlotAt: 0)
        return bytes.withUnsafeBytes { XXH3_64bits_withSeed($0.baseAddress! + 8, $0.count - 8, 0) }
    }
}

/// Nodes held in memory that commits stopped using, released once no pinned version reaches
/// them. Outlives epochs: a snapshot of a logged version may be read long after the checkpoint.
struct RetiredHeldNodes {
    private var retired: [(version: UInt64, refs: [PageRef])] = []

    /// Records that the version `version` no longer uses `refs`.
    mutating func retire(_ refs: [PageRef], atVersion version: UInt64) {
        guard !refs.isEmpty else { return }
        retired.append((version, refs))
    }

    /// Releases the nodes no version pinned at or after `oldestPinned` reaches.
    mutating func release(oldestPinned: UInt64, store: PageStore) {
        while let first = retired.first, first.version <= oldestPinned {
            for ref in first.refs { store.releaseFromMemory(ref) }
            retired.removeFirst()
        }
    }
}
