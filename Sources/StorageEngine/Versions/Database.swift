import Dispatch
import Glibc

/// A handle on a database file: snapshots for reading, one write transaction at a time.
///
/// Handles on the same file in one process share its `SharedFile` (cache, pins, newest
/// version); each handle has its own lock descriptor, so two handles in one process exclude
/// each other's writes exactly as two processes do.
package final class Database: Sendable {
    package let shared: SharedFile

    /// The file's canonical path; nil for an in-memory database.
    package var path: String? { shared.path }

    /// Whether `other` is a handle on the same file (or in-memory database) as this one.
    package func isSameFile(as other: Database) -> Bool { shared === other.shared }
    let writeLock: WriteLock
    let isReadOnly: Bool

    private static let openFiles = Locked<[String: WeakSharedFile]>([:])

    /// Whether this handle counts in `SharedFile.registerHandle`, so that the last one to go
    /// checkpoints (handles made for a checkpoint or a recovery do not).
    private let isHandle: Bool
    /// Whether this handle's small commits may go to the redo log (not while recovering it).
    let logsCommits: Bool

    private init(shared: SharedFile, writeLock: WriteLock, readOnly: Bool, isHandle: Bool, logsCommits: Bool = true) {
        self.shared = shared
        self.writeLock = writeLock
        self.isReadOnly = readOnly
        self.isHandle = isHandle
        self.logsCommits = logsCommits
    }

    deinit {
        // The last handle of the process: write the logged commits into the file, so that a
        // file closed cleanly needs no log.
        guard isHandle, shared.unregisterHandle() == 0 else { return }
        try? Database.checkpointLog(of: shared)
    }

    /// Opens the database at `path`, creating an empty one if `create` and it does not exist;
    /// encrypted with `encryptionKey` when one is given (see `Docs/Encryption.md`).
    ///
    /// - Throws: `fileNotFound`, `permissionDenied`, `fileCorrupted` (not an AsyncRealm file,
    ///   or damaged), `invalidEncryptionKey` (the key is not the file's, or the file is open in
    ///   this process under another key), or an I/O error.
    package static func open(
        path: String, create: Bool = true, readOnly: Bool = false,
        cacheBytes: Int = PageCache.defaultCapacityBytes, openTimeout: Duration = ReaderTable.defaultOpenTimeout,
        encryptionKey: EncryptionKey? = nil
    ) throws -> Database {
        let file = try PosixFile(path: path, create: create, readOnly: readOnly)
        let canonical = realPath(path)
        let lockPath = canonical + ".lock"
        // A read-only file where no lock file can be made (a read-only file system: a seed
        // file shipped with the app) cannot change, so it needs no locks: it is read alone.
        let lockless = readOnly && FileLocks.lockFileIsUnwritable(lockPath)
        let writeLock = lockless ? WriteLock(sharing: DispatchSemaphore(value: 1)) : try WriteLock(lockFilePath: lockPath)
        // A file shorter than the header is new: empty, or being initialised by another process
        // right now, under the write lock (its slots are zeros until written). Wait for that
        // lock before reading it. So is one whose creation failed part way (see
        // `isInterruptedCreation`).
        if mayBeNew(file) {
            if readOnly {
                guard try file.size() > 0 else {
                    throw StorageError(.fileNotFound, "'\(path)' is empty; a read-only handle cannot create a database")
                }
            } else {
                try writeLock.lock()
                defer { writeLock.unlock() }
                if try file.size() == 0 || isInterruptedCreation(file) { try initialize(file, cipher: encryptionKey.map(FileCipher.init)) }
            }
        }
        let shared = try openFiles.withLock { files in
            // Only if it is the same file: one deleted and created again under the path while
            // this process still held the old one (a handle let go of but not yet freed) is
            // another database, which the old state would show stale and write into the void.
            if let existing = files[canonical]?.file, let open = existing.file as? PosixFile, open.identity == file.identity {
                guard existing.store.cipher?.key == encryptionKey else {
                    throw StorageError(.invalidEncryptionKey, "'\(path)' is open in this process \(existing.store.cipher == nil ? "without an encryption key" : "with another encryption key"); open it with the same key")
                }
                return existing
            }
            let created = try SharedFile(
                file: file, path: canonical, cacheBytes: cacheBytes,
                readerTable: lockless ? nil : try ReaderTable(lockFilePath: lockPath, openTimeout: openTimeout),
                cipher: encryptionKey.map(FileCipher.init))
            // Before any other thread of this process can read it.
            if lockless {
                guard try created.unappliedLogRecords() == nil else {
                    throw StorageError(.readOnly, "'\(path)' has commits in its redo log ('\(path).log') that are not in the file, and it is on a read-only file system; open it for writing once where it can be written")
                }
            } else {
                try recoverLog(of: created, readOnly: readOnly)
            }
            files[canonical] = WeakSharedFile(file: created)
            return created
        }
        shared.registerHandle()
        return Database(shared: shared, writeLock: writeLock, readOnly: readOnly, isHandle: true)
    }

    /// Writes into the file the commits a process left in the redo log when it ended without
    /// checkpointing them (it crashed; see `LogEpoch`), before this process reads anything.
    ///
    /// The caller holds the open lock shared, so no process logs now; a log with records past
    /// the file's newest version was left by one that died. Applying them needs the open lock
    /// exclusively, so that no other process reads the file before they are in: every process
    /// opening it now finds the same records, lets go of the open lock and tries to take it
    /// exclusively; one does and applies them, the others wait for the open lock and then find
    /// the log applied.
    ///
    /// - Throws: `readOnly` if the records must be applied and this handle cannot write.
    private static func recoverLog(of shared: SharedFile, readOnly: Bool) throws {
        guard let readerTable = shared.readerTable, let path = shared.path else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + readerTable.openTimeout
        while try shared.unappliedLogRecords() != nil {
            guard clock.now < deadline else { throw ReaderTable.timedOut(after: readerTable.openTimeout) }
            guard !readOnly else {
                throw StorageError(.readOnly, "'\(path)' has commits in its redo log ('\(path).log') from a process that ended before writing them into the file; open it for writing once to apply them")
            }
            readerTable.releaseOpenLock()
            guard try readerTable.tryTakeOpenLockExclusively() else {
                usleep(1000)
                try readerTable.shareOpenLock()
                continue
            }
            defer { readerTable.downgradeOpenLock() }
            guard let records = try shared.unappliedLogRecords() else { return }
            // One transaction for all of them: a crash while it commits leaves the log to
            // apply again. This handle does not log: the open lock must be shared again after.
            let database = Database(
                shared: shared, writeLock: try WriteLock(lockFilePath: path + ".lock"), readOnly: false, isHandle: false, logsCommits: false)
            _ = try database.write { transaction in
                for record in records { try RedoRecord.decode(record.payload).apply(to: transaction) }
            }
            return
        }
    }

    /// Writes the logged commits of this process's epoch into the file (a checkpoint), if one
    /// is open, and lets other processes open the file again. Without `waiting`, gives up if
    /// another writer of the process is under way.
    static func checkpointLog(of shared: SharedFile, waiting: Bool = true) throws {
        guard let path = shared.path, shared.epoch.withLock({ $0 != nil }) else { return }
        let database = Database(shared: shared, writeLock: try WriteLock(lockFilePath: path + ".lock"), readOnly: false, isHandle: false)
        guard let transaction = waiting ? try database.beginWrite() : try database.tryBeginWrite(joiningGroup: false) else { return }
        guard shared.epoch.withLock({ $0 != nil }) else { return transaction.rollback() }
        try transaction.commitCheckpoint()
    }

    /// Opens the in-memory database named `identifier`, creating it empty if no handle in this
    /// process has it open. Its contents live as long as some handle or snapshot of it does.
    package static func inMemory(identifier: String, cacheBytes: Int = PageCache.defaultCapacityBytes) throws -> Database {
        let key = "inmemory:" + identifier
        let shared = try openFiles.withLock { files in
            if let existing = files[key]?.file { return existing }
            let file = InMemoryFile()
            try initialize(file)
            let created = try SharedFile(file: file, path: nil, cacheBytes: cacheBytes, readerTable: nil, cipher: nil)
            files[key] = WeakSharedFile(file: created)
            return created
        }
        return Database(shared: shared, writeLock: WriteLock(sharing: shared.memoryLock), readOnly: false, isHandle: false)
    }

    /// Opens a database on any `FileIO` (an in-memory file, or a fault-injecting one in tests).
    /// The handle is not shared with any other; it locks with a semaphore of its own.
    package static func open(
        file: any FileIO, cacheBytes: Int = PageCache.defaultCapacityBytes, encryptionKey: EncryptionKey? = nil
    ) throws -> Database {
        let cipher = encryptionKey.map(FileCipher.init)
        if try file.size() == 0 { try initialize(file, cipher: cipher) }
        let shared = try SharedFile(file: file, path: nil, cacheBytes: cacheBytes, readerTable: nil, cipher: cipher)
        return Database(shared: shared, writeLock: WriteLock(sharing: shared.memoryLock), readOnly: false, isHandle: false)
    }

    /// Writes the two header slots of a new database. If that fails (the disk is full), the
    /// file is emptied again, so that the next open creates the database afresh instead of
    /// finding a file with no header.
    private static func initialize(_ file: any FileIO, cipher: FileCipher? = nil) throws {
        do {
            let header = FileHeader.newFile()
            try header.write(to: file, slot: 0, cipher: cipher)
            try header.write(to: file, slot: 1, cipher: cipher)
            try file.truncate(to: FileHeader.dataStart)
            try file.sync()
        } catch {
            try? file.truncate(to: 0)
            throw error
        }
    }

    /// Whether `file` may be new: empty, being initialised by another opener right now, or left
    /// by a creation that failed part way. Such a file is looked at again under the write lock.
    ///
    /// This look takes no lock, so the file may change under it: a creation grows the file to
    /// its first growth, writes the header and cuts the file back, and reading the zeros past
    /// the header then ended early, failing the open with a "damaged" file that was only being
    /// created (`FailedCreationTests.lookWhileCreated`). A look that fails sends the opener to
    /// the lock, where it looks again with no creation under way.
    static func mayBeNew(_ file: any FileIO) -> Bool {
        do {
            return try file.size() < FileHeader.dataStart || isInterruptedCreation(file)
        } catch {
            return true
        }
    }

    /// Whether `file` is what a creation that failed part way leaves when even emptying it
    /// failed (or the process died): nothing but zeros, no longer than the first growth of a
    /// file. Such a file never held a commit, and is created afresh. A file with any byte
    /// set, or longer, is not touched: it may be a damaged database, which must be reported,
    /// never overwritten.
    private static func isInterruptedCreation(_ file: any FileIO) throws -> Bool {
        let size = try file.size()
        guard size >= FileHeader.dataStart, size <= PosixFile.minimumGrowth else { return false }
        let header = try file.read(count: Int(FileHeader.dataStart), at: 0)
        guard header.allSatisfy({ $0 == 0 }) else { return false }
        return try file.read(count: Int(size), at: 0).allSatisfy { $0 == 0 }
    }

    /// Whether a handle of this process has the file at `canonical` (a real path) open.
    static func isOpenInProcess(_ canonical: String) -> Bool {
        openFiles.withLock { $0[canonical]?.file != nil }
    }

    /// Whether a handle of this process has had the file at `canonical` (a real path) open,
    /// whether or not one still has: it may be closing right now.
    static func wasOpenInProcess(_ canonical: String) -> Bool {
        openFiles.withLock { $0[canonical] != nil }
    }

    static func realPath(_ path: String) -> String {
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
                    freeSpace.reclaim(oldestPinned: shared.oldestPinnedVersion)
                    return WriteTransaction(
                        database: self, header: header, base: base, freeSpace: freeSpace, durableSlot: durableSlot, joinedGroup: true,
                        holdsFileLock: false)
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
        // Writers of this process exclude each other through the process's own lock first.
        // The file's write lock excludes other processes; while this process logs there are
        // none (see `LogEpoch`), so it is taken only when not logging. Only a commit begins or
        // ends an epoch, so that does not change while this writer holds the process's lock.
        guard shared.writers.wait(timeout: .now()) == .success else { return nil }
        let takesFileLock = !shared.isLogging
        do {
            guard try !takesFileLock || writeLock.tryLock() else {
                shared.writers.signal()
                return nil
            }
        } catch {
            shared.writers.signal()
            throw error
        }
        if shared.hasOpenGroup {
            // Opened between the check and the lock: only this handle's own lock can be held
            // twice, so the group holds it; leave it to the group.
            shared.writers.signal()
            return nil
        }
        return try beginWriteHoldingLock(holdsFileLock: takesFileLock)
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

    private func beginWriteHoldingLock(holdsFileLock: Bool) throws -> WriteTransaction {
        do {
            // Holding the lock, one look at the file finds the newest version, and no commit
            // can free its pages before the pin is published.
            try shared.refreshFromDisk()
            let (pinnedHeader, pinnedCatalog, pin) = shared.pinKnownLatest()
            let base = Snapshot(version: pinnedHeader.version, catalog: pinnedCatalog, store: shared.store, pin: pin)
            let (header, slot, cached) = shared.knownHeaderWithSlot
            require(header.version == base.version, "the newest version changed while this handle held the write lock")
            var freeSpace = try cached ?? loadFreeSpace(header)
            // Space freed by commits no pinned snapshot predates can be reused now.
            freeSpace.reclaim(oldestPinned: shared.oldestPinnedVersion)
            return WriteTransaction(
                database: self, header: header, base: base, freeSpace: freeSpace, durableSlot: slot, joinedGroup: false,
                holdsFileLock: holdsFileLock)
        } catch {
            endWrite(releasingFileLock: holdsFileLock)
            throw error
        }
    }

    /// The newest committed version, looking at the file for commits of other processes.
    package func newestVersion() throws -> UInt64 {
        try shared.refreshFromDisk()
        return shared.knownHeader.version
    }

    /// The newest version this process knows to be durable, without looking at the file.
    package var durableVersion: UInt64 {
        shared.knownHeader.version
    }

    /// How many commit groups of more than one commit this process made durable, and how many
    /// commits they held (for tests and diagnostics).
    var groupStatistics: (groups: Int, commits: Int) {
        shared.groupStatistics
    }

    /// How many distinct versions snapshots of this process pin.
    package var pinnedVersionCount: Int {
        shared.pinnedVersionCount
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

    /// Releases the process's writer lock, and the file's write lock if the writer took it.
    func endWrite(releasingFileLock: Bool) {
        if releasingFileLock { writeLock.unlock() }
        shared.writers.signal()
    }

    func loadFreeSpace(_ header: FileHeader) throws -> FreeSpace {
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
        guard !shared.hasOpenGroup, shared.writers.wait(timeout: .now()) == .success else { return }
        defer { shared.writers.signal() }
        // While this process logs, the file is not the newest version's whole story.
        guard !shared.isLogging, try writeLock.tryLock() else { return }
        defer { writeLock.unlock() }
        try shared.refreshFromDisk()
        let header = try shared.readHeader().header
        if try shared.file.size() > header.end { try shared.file.truncate(to: header.end) }
    }
}

private struct WeakSharedFile: Sendable {
    weak var file: SharedFile?
}
