import Glibc

/// A handle on a database file: snapshots for reading, one write transaction at a time.
///
/// Handles on the same file in one process share its `SharedFile` (cache, pins, newest
/// version); each handle has its own lock descriptor, so two handles in one process exclude
/// each other's writes exactly as two processes do.
package final class Database: Sendable {
    package let shared: SharedFile
    let writeLock: WriteLock
    package let isReadOnly: Bool

    private static let openFiles = Locked<[String: WeakSharedFile]>([:])

    private init(shared: SharedFile, writeLock: WriteLock, readOnly: Bool) {
        self.shared = shared
        self.writeLock = writeLock
        self.isReadOnly = readOnly
    }

    /// Opens the database at `path`, creating an empty one if `create` and it does not exist.
    ///
    /// - Throws: `fileNotFound`, `permissionDenied`, `fileCorrupted` (not an AsyncRealm file,
    ///   or damaged), or an I/O error.
    package static func open(
        path: String, create: Bool = true, readOnly: Bool = false,
        cacheBytes: Int = PageCache.defaultCapacityBytes
    ) throws -> Database {
        let file = try PosixFile(path: path, create: create, readOnly: readOnly)
        let canonical = realPath(path)
        let lockPath = canonical + ".lock"
        let writeLock = try WriteLock(lockFilePath: lockPath)
        // A file shorter than the header is new: empty, or being initialised by another process
        // right now, under the write lock (its slots are zeros until written). Wait for that
        // lock before reading it.
        if try file.size() < FileHeader.dataStart {
            if readOnly {
                guard try file.size() > 0 else {
                    throw StorageError(.fileNotFound, "'\(path)' is empty; a read-only handle cannot create a database")
                }
            } else {
                try writeLock.lock()
                defer { writeLock.unlock() }
                if try file.size() == 0 { try initialize(file) }
            }
        }
        let shared = try openFiles.withLock { files in
            if let existing = files[canonical]?.file { return existing }
            let created = try SharedFile(
                file: file, path: canonical, cacheBytes: cacheBytes,
                readerTable: try ReaderTable(lockFilePath: lockPath))
            files[canonical] = WeakSharedFile(file: created)
            return created
        }
        let database = Database(shared: shared, writeLock: writeLock, readOnly: readOnly)
        if !readOnly, getenv("ASYNCREALM_REDO_LOG") != nil {
            try database.startLogging(logPath: canonical + ".log")
        }
        return database
    }

    /// (Prototype, see `LogEpoch`.) Replays what the redo log at `logPath` holds past the file's
    /// newest version as ordinary commits, starts a new log generation, and from then on makes
    /// small commits durable in the log.
    private func startLogging(logPath: String) throws {
        guard shared.epoch.withLock({ $0 }) == nil else { return }
        let file = try PosixFile(path: logPath, create: true, readOnly: false)
        let log: RedoLog
        // A log whose base is past the file's newest version belongs to a file since replaced
        // (deleted and created again): it has nothing for this one. (A real version would name
        // the file it belongs to in its header.)
        if let (existing, records) = try RedoLog.open(file), existing.baseVersion <= (try newestVersion()) {
            for record in records {
                let newest = try newestVersion()
                guard record.version > newest else { continue }
                guard record.version == newest + 1 else {
                    throw StorageError(.fileCorrupted, "the redo log continues from version \(record.version - 1), the file holds \(newest)")
                }
                _ = try write { try RedoRecord.decode(record.payload).apply(to: $0) }
            }
            try existing.startGeneration(baseVersion: try newestVersion())
            log = existing
        } else {
            log = try RedoLog.create(in: file, baseVersion: try newestVersion())
        }
        try file.prepareForWriting(RedoLog.recordsStart..<(RedoLog.recordsStart + (1 << 20)))
        try file.sync()
        shared.epoch.withLock { $0 = LogEpoch(log: log) }
    }

    /// Opens the in-memory database named `identifier`, creating it empty if no handle in this
    /// process has it open. Its contents live as long as some handle or snapshot of it does.
    package static func inMemory(identifier: String, cacheBytes: Int = PageCache.defaultCapacityBytes) throws -> Database {
        let key = "inmemory:" + identifier
        let shared = try openFiles.withLock { files in
            if let existing = files[key]?.file { return existing }
            let file = InMemoryFile()
            try initialize(file)
            let created = try SharedFile(file: file, path: nil, cacheBytes: cacheBytes, readerTable: nil)
            files[key] = WeakSharedFile(file: created)
            return created
        }
        return Database(shared: shared, writeLock: WriteLock(sharing: shared.memoryLock), readOnly: false)
    }

    /// Opens a database on any `FileIO` (an in-memory file, or a fault-injecting one in tests).
    /// The handle is not shared with any other; it locks with a semaphore of its own.
    package static func open(file: any FileIO, cacheBytes: Int = PageCache.defaultCapacityBytes) throws -> Database {
        if try file.size() == 0 { try initialize(file) }
        let shared = try SharedFile(file: file, path: nil, cacheBytes: cacheBytes, readerTable: nil)
        return Database(shared: shared, writeLock: WriteLock(sharing: shared.memoryLock), readOnly: false)
    }

    private static func initialize(_ file: any FileIO) throws {
        try FileHeader.empty.write(to: file, slot: 0)
        try FileHeader.empty.write(to: file, slot: 1)
        try file.truncate(to: FileHeader.dataStart)
        try file.sync()
    }

    private static func realPath(_ path: String) -> String {
        guard let resolved = Glibc.realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The newest committed version, pinned for as long as the snapshot lives.
    package func snapshot() throws -> Snapshot {
        let (header, catalog, pin) = try shared.pinLatest()
        return Snapshot(version: header.version, catalog: catalog, store: shared.store, pin: pin)
    }

    /// Waits for the write lock and starts a transaction on the newest version.
    ///
    /// - Throws: `readOnly` for a read-only handle, or an I/O error reading the newest version.
    package func beginWrite() throws -> WriteTransaction {
        guard !isReadOnly else {
            throw StorageError(.readOnly, "this database was opened read-only; open it for writing to change it")
        }
        // Polls rather than sleeping in the lock: the holder may be this process's commit group,
        // between two of its writers, which only this loop ends (by committing it) if every
        // thread that could run the group's next writer is waiting here.
        var delay: UInt32 = 20
        while true {
            if let transaction = try tryBeginWrite(joiningGroup: false) { return transaction }
            usleep(delay)
            delay = min(delay * 2, 1000)
        }
    }

    /// Starts a transaction if the write lock is free, and returns nil at once if another
    /// handle, in this process or another, holds it: for callers that wait by suspending.
    ///
    /// With `joiningGroup`, the caller is the next writer of this process's commit group, if
    /// one is open, and starts from the group's newest version (see `CommitGroup`); it must
    /// then run its transaction to the end without suspending, since every other writer of
    /// the file waits for it. Otherwise an idle group is committed first.
    package func tryBeginWrite(joiningGroup: Bool) throws -> WriteTransaction? {
        guard !isReadOnly else {
            throw StorageError(.readOnly, "this database was opened read-only; open it for writing to change it")
        }
        if shared.hasOpenGroup {
            if joiningGroup {
                switch shared.joinGroup() {
                case .joined(let header, let catalog, var freeSpace, let durableSlot, let pin):
                    let base = Snapshot(version: header.version, catalog: catalog, store: shared.store, pin: pin)
                    let oldest = shared.state.withLock { shared.oldestPinned($0) }
                    freeSpace.reclaim(oldestPinned: oldest)
                    return WriteTransaction(database: self, header: header, base: base, freeSpace: freeSpace, durableSlot: durableSlot, joinedGroup: true)
                case .busy:
                    return nil
                case .noGroup:
                    break
                }
            } else {
                // The group's lock may be this handle's own (a writer on the actor that opened
                // the group): taking it again would succeed without excluding anyone. Ended only
                // once idle for a moment: its next writer is usually on its way.
                guard try commitOpenGroup(idleNanoseconds: CommitGroup.graceNanoseconds) else { return nil }
            }
        }
        guard try writeLock.tryLock() else { return nil }
        if shared.hasOpenGroup {
            // Opened between the check and the lock: only this handle's own lock can be held
            // twice, so the group holds it; leave it to the group.
            return nil
        }
        return try beginWriteHoldingLock()
    }

    /// Makes this process's open commit group durable, if it has been idle for at least
    /// `idleNanoseconds`: writes its newest header and syncs (see `CommitGroup`). Returns false
    /// if a transaction of the group is running, another caller is writing it, or it has not
    /// been idle long enough; true if no group was open or it was written.
    ///
    /// - Throws: the I/O error that lost the group; its writers are told the same.
    @discardableResult
    package func commitOpenGroup(idleNanoseconds: UInt64 = 0) throws -> Bool {
        guard shared.hasOpenGroup else { return true }
        guard let group = shared.claimGroup(idleNanoseconds: idleNanoseconds) else { return !shared.hasOpenGroup }
        try shared.commit(group)
        return true
    }

    private func beginWriteHoldingLock() throws -> WriteTransaction {
        do {
            // Holding the lock, one look at the file finds the newest version, and no commit
            // can free its pages before the pin is published.
            try shared.refreshFromDisk()
            let (pinnedHeader, pinnedCatalog, pin) = shared.pinKnownLatest()
            let base = Snapshot(version: pinnedHeader.version, catalog: pinnedCatalog, store: shared.store, pin: pin)
            let (header, slot, cached) = shared.state.withLock { ($0.header, $0.headerSlot, $0.freeSpace) }
            precondition(header.version == base.version, "the newest version changed while this handle held the write lock")
            var freeSpace = try cached ?? loadFreeSpace(header)
            // Space freed by commits no pinned snapshot predates can be reused now.
            let oldest = shared.state.withLock { shared.oldestPinned($0) }
            freeSpace.reclaim(oldestPinned: oldest)
            return WriteTransaction(database: self, header: header, base: base, freeSpace: freeSpace, durableSlot: slot, joinedGroup: false)
        } catch {
            writeLock.unlock()
            throw error
        }
    }

    /// The newest committed version, looking at the file for commits of other processes.
    package func newestVersion() throws -> UInt64 {
        try shared.refreshFromDisk()
        return shared.state.withLock { $0.header.version }
    }

    /// The newest version this process knows to be durable, without looking at the file.
    package var durableVersion: UInt64 {
        shared.state.withLock { $0.header.version }
    }

    /// How many commit groups of more than one commit this process made durable, and how many
    /// commits they held (for tests and diagnostics).
    package var groupStatistics: (groups: Int, commits: Int) {
        shared.state.withLock { $0.groupStatistics }
    }

    /// How many distinct versions snapshots of this process pin.
    package var pinnedVersionCount: Int {
        shared.state.withLock { $0.pins.count }
    }

    /// Runs `body` in a write transaction and commits it; rolls back if `body` throws.
    @discardableResult
    package func write<Result>(_ body: (WriteTransaction) throws -> Result) throws -> (Result, CommitResult) {
        let transaction = try beginWrite()
        do {
            let result = try body(transaction)
            return (result, try transaction.commit())
        } catch {
            transaction.rollback()
            throw error
        }
    }

    func endWrite() {
        writeLock.unlock()
    }

    private func loadFreeSpace(_ header: FileHeader) throws -> FreeSpace {
        guard !header.freeList.isNull else { return FreeSpace(end: header.end) }
        let raw = try shared.store.readPage(header.freeList, expecting: .freeList)
        let space = try FreeSpace.decode(raw, origin: header.freeList.offset)
        guard space.end == header.end else {
            throw StorageError.corrupted("free list ends at \(space.end), the header at \(header.end)", at: header.freeList.offset)
        }
        return space
    }

    /// Gives the file's unused tail back to the file system, if no one is writing.
    package func trimFile() throws {
        // An open group may hold this very handle's lock, which `tryLock` would then "take".
        guard !shared.hasOpenGroup, try writeLock.tryLock() else { return }
        defer { writeLock.unlock() }
        try shared.refreshFromDisk()
        let header = try shared.readHeader().header
        if try shared.file.size() > header.end { try shared.file.truncate(to: header.end) }
    }
}

private struct WeakSharedFile: Sendable {
    weak var file: SharedFile?
}
