import Glibc

/// Compacting a database file in place, as it is opened (RealmSwift's `shouldCompactOnLaunch`).
extension Database {
    /// The file's size and the bytes its newest version uses (pages it references, not free
    /// space), for a decision to compact.
    package func spaceUsage() throws -> (totalBytes: UInt64, usedBytes: UInt64) {
        let header = try shared.readHeader().header
        let freeSpace = try loadFreeSpace(header)
        let free = freeSpace.unusedBytes
        return (try shared.file.size(), header.end - FileHeader.dataStart - min(free, header.end - FileHeader.dataStart))
    }

    /// Compacts the database at `path` in place when `shouldCompact(totalBytes, usedBytes)`
    /// says so, if this is the first open of the file in this process and no other process has
    /// it open (it is left as it is otherwise).
    ///
    /// The open lock is held exclusively throughout, so no process opens the file meanwhile. A
    /// compacted copy of the newest version (its redo log applied) is built beside the file
    /// (`path.compacting`, synced), renamed over it, and the directory synced: a crash at any
    /// moment leaves the old file whole, or the compacted one whole (and perhaps a
    /// `.compacting` file, which the next compaction replaces).
    ///
    /// - Parameters:
    ///   - progress: called now and then with the rows copied so far and the rows in all.
    ///   - shouldCompact: decides, from the file's size and the bytes its data uses.
    /// - Returns: Whether the file was compacted.
    /// - Throws: What opening throws; an I/O error building the copy (the file is unchanged).
    package static func compactOnFirstOpen(
        atPath path: String, encryptionKey: EncryptionKey? = nil, openTimeout: Duration = ReaderTable.defaultOpenTimeout,
        progress: (_ copiedRows: UInt64, _ totalRows: UInt64) -> Void = { _, _ in },
        shouldCompact: (_ totalBytes: UInt64, _ usedBytes: UInt64) throws -> Bool
    ) throws -> Bool {
        let canonical = realPath(path)
        guard access(canonical, F_OK) == 0, !isOpenInProcess(canonical) else { return false }
        let database = try Database.open(path: path, create: false, openTimeout: openTimeout, encryptionKey: encryptionKey)
        // Alive until the copy is in place: its open lock keeps other processes out.
        return try withExtendedLifetime(database) {
            guard let readerTable = database.shared.readerTable, try readerTable.tryTakeOpenLockExclusively() else { return false }
            defer { readerTable.downgradeOpenLock() }
            let usage = try database.spaceUsage()
            guard try shouldCompact(usage.totalBytes, usage.usedBytes) else { return false }
            let building = canonical + compactingSuffix
            try buildCopy(of: tablesToCopy(from: try database.snapshot()), at: building, encryptionKey: encryptionKey, progress: progress)
            // The log's records are in the copy; the log belongs to the old file.
            unlink(canonical + ".log")
            guard rename(building, canonical) == 0 else {
                let error = PosixFile.error(errno, "move the compacted copy over '\(path)'")
                removeBuilding(building)
                throw error
            }
            try syncDirectory(of: canonical)
            return true
        }
    }
}
