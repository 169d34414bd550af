/// What a process keeps between checkpoints while small commits go to the redo log (see
/// `Docs/RedoLogPlan.md`). A PROTOTYPE for measuring: one process only, enabled by
/// `ASYNCREALM_REDO_LOG=1`; another process writing the file meanwhile would not see the
/// logged versions.
package final class LogEpoch: @unchecked Sendable {
    let log: RedoLog
    /// The last checkpoint's header: the durable version on disk, whose catalog, free list and
    /// commit record the next checkpoint frees.
    var checkpoint: FileHeader?
    /// Disk pages the logged commits replaced: kept from reuse until the next checkpoint is
    /// durable, since recovery goes back to the last one.
    var freedOnDisk: [Extent] = []
    /// Nodes held in memory that logged commits stopped using, by the version that did.
    var heldRetired: [(version: UInt64, refs: [PageRef])] = []
    var commits = 0

    /// Logged commits after which the next commit is a checkpoint.
    static let commitsPerCheckpoint = 256

    init(log: RedoLog) {
        self.log = log
    }

    /// Releases the held nodes that no version pinned at or after `oldestPinned` reaches.
    func releaseHeld(oldestPinned: UInt64, store: PageStore) {
        while let first = heldRetired.first, first.version <= oldestPinned {
            for ref in first.refs { store.releaseFromMemory(ref) }
            heldRetired.removeFirst()
        }
    }
}
