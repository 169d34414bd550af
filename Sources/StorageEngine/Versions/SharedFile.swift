import Dispatch

/// The state one process keeps for one database file, shared by every handle on it: the page
/// cache, the newest committed version it knows, and the versions its snapshots pin.
///
/// Pinning and publishing a new version happen under one lock, so a writer computing the oldest
/// pinned version never misses a reader that took the version it is about to free pages of.
package final class SharedFile: Sendable {
    struct Committed {
        var header: FileHeader
        var catalog: Catalog
        /// The allocator state of `header.version`, kept by the last writer of this process.
        var freeSpace: FreeSpace?
        var pins: [UInt64: Int] = [:]
        var published: UInt64?
        var recentCommits: [CommitResult] = []
    }

    /// The canonical path, or nil for an in-memory database.
    package let path: String?
    package let store: PageStore
    let readerTable: ReaderTable?
    /// The write lock of in-memory databases (file-backed ones lock `<file>.lock`).
    let memoryLock = DispatchSemaphore(value: 1)
    let state: Locked<Committed>
    /// The newest header whose commit is known complete, so it is checked only once.
    private let completeHeader = Locked<FileHeader?>(nil)

    /// How many commits' changesets are kept for observers.
    static let keptCommits = 256

    init(file: any FileIO, path: String?, cacheBytes: Int, readerTable: ReaderTable?) throws {
        self.path = path
        self.store = PageStore(file: file, cache: PageCache(capacityBytes: cacheBytes))
        self.readerTable = readerTable
        state = Locked(Committed(header: .empty, catalog: Catalog()))
        let header = try readHeader()
        let catalog = try Catalog.load(header.catalog, from: store)
        state.withLock {
            $0.header = header
            $0.catalog = catalog
        }
    }

    deinit {
        closeCleanly()
    }

    /// The newest header on disk whose commit is complete.
    func readHeader() throws -> FileHeader {
        try FileHeader.read(from: file) { header in
            if completeHeader.withLock({ $0 == header }) { return true }
            guard CommitRecord.isComplete(header, store: store) else { return false }
            markComplete(header)
            return true
        }
    }

    /// Records that `header`'s commit is complete (its writer knows it is).
    func markComplete(_ header: FileHeader) {
        completeHeader.withLock { $0 = header }
    }

    /// When the last handle goes: if no one is writing, copy the newest header into the other
    /// slot as well, so damage to one slot at rest cannot roll the file back a version, and give
    /// the unused tail of the file back.
    private func closeCleanly() {
        let locked: Bool
        if let readerTable {
            locked = (try? readerTable.tryLockWriter()) ?? false
        } else {
            locked = memoryLock.wait(timeout: .now()) == .success
        }
        guard locked else { return }
        defer {
            if let readerTable { readerTable.unlockWriter() } else { memoryLock.signal() }
        }
        guard let header = try? readHeader() else { return }
        let twin = 1 - FileHeader.slot(for: header.version)
        try? header.write(to: file, slot: twin)
        if let size = try? file.size(), size > header.end { try? file.truncate(to: header.end) }
        try? file.sync()
    }

    package var file: any FileIO { store.file }

    /// Changesets of the commits after `version` that this process still remembers, oldest first.
    package func commits(after version: UInt64) -> [CommitResult] {
        state.withLock { $0.recentCommits.filter { $0.version > version } }
    }

    /// Adopts a version another process committed, if the file holds a newer one.
    func refreshFromDisk() throws {
        guard readerTable != nil else { return }
        let header = try readHeader()
        let known = state.withLock { $0.header }
        guard header.version > known.version else { return }
        let catalog = try Catalog.load(header.catalog, from: store)
        state.withLock { committed in
            guard header.version > committed.header.version else { return }
            committed.header = header
            committed.catalog = catalog
            committed.freeSpace = nil
        }
    }

    /// Pins the newest version this process knows of, without reading the file. That is the
    /// newest version while the caller holds the write lock (no one else can commit), and the
    /// version just committed right after a commit, before the lock is released.
    func pinKnownLatest() -> (FileHeader, Catalog, PinnedVersion) {
        let (header, catalog) = state.withLock { committed in
            committed.pins[committed.header.version, default: 0] += 1
            publishOldest(&committed)
            return (committed.header, committed.catalog)
        }
        return (header, catalog, PinnedVersion(version: header.version, file: self))
    }

    /// Pins the newest version and returns it.
    func pinLatest() throws -> (FileHeader, Catalog, PinnedVersion) {
        while true {
            try refreshFromDisk()
            let (header, catalog, pin) = pinKnownLatest()
            // Another process may have scanned the reader table before our pin was published
            // and freed pages of this version since. If the file still holds this version as
            // its newest, no later commit exists, so nothing this version uses was freed.
            guard readerTable != nil, try readHeader().version != header.version else {
                return (header, catalog, pin)
            }
        }
    }

    func unpin(_ version: UInt64) {
        state.withLock { committed in
            guard let count = committed.pins[version] else { return }
            committed.pins[version] = count > 1 ? count - 1 : nil
            publishOldest(&committed)
        }
    }

    /// The oldest version any snapshot, in this process or another, may still read.
    func oldestPinned(_ committed: Committed) -> UInt64 {
        var oldest = committed.header.version
        if let local = committed.pins.keys.min() { oldest = min(oldest, local) }
        if let remote = readerTable?.oldestOfOtherProcesses() { oldest = min(oldest, remote) }
        return oldest
    }

    private func publishOldest(_ committed: inout Committed) {
        guard let readerTable else { return }
        let oldest = committed.pins.keys.min()
        if oldest != committed.published {
            committed.published = oldest
            readerTable.publish(oldest)
        }
    }
}

/// Keeps one version of a file readable while alive (invariant 2): space that version can see
/// is not reused until every `PinnedVersion` of it is gone.
package final class PinnedVersion: Sendable {
    package let version: UInt64
    private let file: SharedFile

    init(version: UInt64, file: SharedFile) {
        self.version = version
        self.file = file
    }

    deinit { file.unpin(version) }
}
