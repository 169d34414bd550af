import Glibc

/// A handle on a database file: snapshots for reading, one write transaction at a time.
///
/// Handles on the same file in one process share its `SharedFile` (cache, pins, newest
/// version); each handle has its own lock descriptor, so two handles in one process exclude
/// each other's writes exactly as two processes do.
package final class Database: Sendable {
    package let shared: SharedFile
    private let writeLock: WriteLock
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
        if try file.size() == 0 {
            guard !readOnly else {
                throw StorageError(.fileNotFound, "'\(path)' is empty; a read-only handle cannot create a database")
            }
            try writeLock.lock()
            defer { writeLock.unlock() }
            if try file.size() == 0 { try initialize(file) }
        }
        let shared = try openFiles.withLock { files in
            if let existing = files[canonical]?.file { return existing }
            let created = try SharedFile(
                file: file, path: canonical, cacheBytes: cacheBytes,
                readerTable: try ReaderTable(lockFilePath: lockPath))
            files[canonical] = WeakSharedFile(file: created)
            return created
        }
        return Database(shared: shared, writeLock: writeLock, readOnly: readOnly)
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
        try writeLock.lock()
        return try beginWriteHoldingLock()
    }

    /// Starts a transaction if the write lock is free, and returns nil at once if another
    /// handle, in this process or another, holds it: for callers that wait by suspending.
    package func tryBeginWrite() throws -> WriteTransaction? {
        guard !isReadOnly else {
            throw StorageError(.readOnly, "this database was opened read-only; open it for writing to change it")
        }
        guard try writeLock.tryLock() else { return nil }
        return try beginWriteHoldingLock()
    }

    private func beginWriteHoldingLock() throws -> WriteTransaction {
        do {
            // Holding the lock, one look at the file finds the newest version, and no commit
            // can free its pages before the pin is published.
            try shared.refreshFromDisk()
            let (pinnedHeader, pinnedCatalog, pin) = shared.pinKnownLatest()
            let base = Snapshot(version: pinnedHeader.version, catalog: pinnedCatalog, store: shared.store, pin: pin)
            let (header, cached) = shared.state.withLock { ($0.header, $0.freeSpace) }
            precondition(header.version == base.version, "the newest version changed while this handle held the write lock")
            var freeSpace = try cached ?? loadFreeSpace(header)
            // Space freed by commits no pinned snapshot predates can be reused now.
            let oldest = shared.state.withLock { shared.oldestPinned($0) }
            freeSpace.reclaim(oldestPinned: oldest)
            return WriteTransaction(database: self, header: header, base: base, freeSpace: freeSpace)
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
        guard try writeLock.tryLock() else { return }
        defer { writeLock.unlock() }
        try shared.refreshFromDisk()
        let header = try shared.readHeader()
        if try shared.file.size() > header.end { try shared.file.truncate(to: header.end) }
    }
}

private struct WeakSharedFile: Sendable {
    weak var file: SharedFile?
}
