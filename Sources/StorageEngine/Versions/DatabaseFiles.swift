import Glibc

/// The files a database at `path` consists of, and removing them.
///
/// A file database is `path` itself, `path.lock` (the write, open and reader locks: see
/// `ReaderTable`) and `path.log` (the redo log: see `RedoLog`). A compaction builds its copy
/// in `path.compacting` (with its own `.lock` and `.log`), which a compaction killed part way
/// leaves behind, and a `writeCopy` to `path` its copy in `path.copying` under the lock file
/// `path.copylock`, which a writer killed part way leaves. Nothing else is written beside it.
extension Database {
    /// The suffixes of the files beside a database that belong to it.
    package static let companionSuffixes = [".lock", ".log"]
    /// The suffix of the copy a compaction builds beside the database (see `compactOnFirstOpen`).
    static let compactingSuffix = ".compacting"
    /// The suffix of the copy `writeCopy` builds beside its destination.
    static let copyingSuffix = ".copying"

    /// Removes the database at `path` and the files beside it that belong to it.
    ///
    /// It refuses while the file is open anywhere: a handle of this process (a `Database` not
    /// yet let go of) or another process (which holds the open lock shared). The open and write
    /// locks are held exclusively while the files are unlinked, so no process opens the old
    /// file meanwhile; one that opens the path afterwards creates a new database.
    ///
    /// - Returns: whether there was a database file to remove.
    /// - Throws: `alreadyOpen` while any handle has it open; an I/O error if a file cannot be
    ///   removed.
    package static func deleteFiles(atPath path: String) throws -> Bool {
        let canonical = realPath(path)
        guard !isOpenInProcess(canonical) else {
            throw StorageError(.alreadyOpen, "'\(path)' is open in this process; close every realm on it (let go of every handle, frozen value and reference) before deleting it")
        }
        removeCopyLeftovers(canonical)
        let paths = [canonical] + companionSuffixes.map { canonical + $0 }
        guard paths.contains(where: { access($0, F_OK) == 0 }) else { return false }
        let descriptor = try FileLocks.openLockFile(canonical + ".lock")
        defer { Glibc.close(descriptor) }
        guard try lockForDeletion(descriptor, closingHere: wasOpenInProcess(canonical)) else {
            throw StorageError(.alreadyOpen, "'\(path)' is open in another process; close it there before deleting it")
        }
        let existed = access(canonical, F_OK) == 0
        // The lock file goes last: while it exists, an opener waits on the locks held here.
        let compacting = [compactingSuffix] + companionSuffixes.map { compactingSuffix + $0 }
        for file in [canonical, canonical + ".log"] + compacting.map({ canonical + $0 }) + [canonical + ".lock"]
        where unlink(file) != 0 && errno != ENOENT {
            throw PosixFile.error(errno, "delete '\(file)'")
        }
        return existed
    }

    /// Removes what a writer of a copy to `path` killed part way left beside it (its lock file
    /// and the copy it was building, see `writeCopy`), unless a writer is at work there now.
    private static func removeCopyLeftovers(_ path: String) {
        guard access(path + CopyLock.suffix, F_OK) == 0 || access(path + copyingSuffix, F_OK) == 0 else { return }
        _ = try? CopyLock.withLockIfFree(for: path) { removeBuilding(path + copyingSuffix) }
    }

    /// How long deleting a file this process had open waits for its last handle to finish
    /// closing (see `lockForDeletion`).
    static let closingGrace: Duration = .seconds(2)

    /// Takes the open and write locks exclusively through `descriptor`, for deleting; false if
    /// another holder keeps them.
    ///
    /// A handle of this process whose last reference was let go of on another thread (a task
    /// that held the realm's coordinator a moment longer) is no longer open here
    /// (`isOpenInProcess`), yet holds its locks while it writes its last header and syncs.
    /// Deleting the file right after letting go of every realm then failed with "open in another
    /// process", now and then. So when this process `closingHere` had the file open, the locks
    /// are asked for again until `closingGrace` has passed; otherwise once.
    static func lockForDeletion(_ descriptor: Int32, closingHere: Bool) throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + (closingHere ? closingGrace : .zero)
        while true {
            if try FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, wait: false),
               try FileLocks.lock(descriptor, start: 0, length: 1, wait: false) {
                return true
            }
            guard clock.now < deadline else { return false }
            usleep(2_000)
        }
    }

    /// Whether the file at this handle's path is still the one it has open: false once it
    /// was deleted, or deleted and created again (another database under the same path).
    /// Always true for an in-memory database.
    package var isStillAtPath: Bool {
        guard let path, let open = shared.file as? PosixFile else { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return open.identity == (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
