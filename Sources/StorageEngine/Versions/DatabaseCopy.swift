import Glibc

/// A compacted copy of one state of a database, written to a new file: only the live rows,
/// packed afresh, with the same tables, keys and indexes.
extension Database {
    /// One table to copy: its rows, the key it hands out next, and its indexes.
    package struct CopiedTable {
        let name: String
        let rows: any TableReading
        let nextKey: UInt64
        let indexes: [(column: Int, unique: Bool)]
    }

    /// The tables of `snapshot`, to copy.
    package static func tablesToCopy(from snapshot: Snapshot) -> [CopiedTable] {
        snapshot.tableNames.compactMap { name in
            guard let roots = snapshot.roots(ofTable: name), let table = snapshot.tableIfPresent(name) else { return nil }
            return CopiedTable(name: name, rows: table, nextKey: roots.nextKey, indexes: roots.indexes.map { ($0.column, $0.unique) })
        }
    }

    /// The tables as `transaction` has them now, its changes included, to copy.
    package static func tablesToCopy(from transaction: WriteTransaction) -> [CopiedTable] {
        transaction.tableNames.compactMap { name in
            guard let table = transaction.tableIfPresent(name) else { return nil }
            let indexes = table.indexedColumns.sorted().map { ($0, table.index(on: $0)?.unique ?? false) }
            return CopiedTable(name: name, rows: table, nextKey: table.nextKey, indexes: indexes)
        }
    }

    /// Writes `tables` as a new database at `path`, which must not exist, encrypted with
    /// `encryptionKey` if there is one (so changing a file's key is writing a copy).
    ///
    /// The copy is built in a file of its own beside `path` (`path.copying`), committed and
    /// closed, then linked to `path`, which fails rather than replace a file created there in
    /// the meantime, and the directory is synced: a crash leaves no file at `path` or the
    /// whole copy, never part of one. Writers of copies to one path, in this process or others,
    /// take turns (`CopyLock`): a writer that finds the path taken when its turn comes throws
    /// `fileExists`, as one that found it before.
    ///
    /// - Throws: `fileExists` if `path` exists; an I/O error writing the copy (nothing is left
    ///   at `path` then).
    package static func writeCopy(of tables: [CopiedTable], toPath path: String, encryptionKey: EncryptionKey? = nil) throws {
        let exists = StorageError(.fileExists, "'\(path)' exists already; a copy is written only to a new file")
        guard access(path, F_OK) != 0 else { throw exists }
        try CopyLock.withLock(for: path) {
            guard access(path, F_OK) != 0 else { throw exists }
            let building = path + copyingSuffix
            defer { removeBuilding(building) }
            try buildCopy(of: tables, at: building, encryptionKey: encryptionKey)
            guard link(building, path) == 0 else {
                throw errno == EEXIST
                    ? StorageError(.fileExists, "'\(path)' was created while the copy was being written; a copy is written only to a new file")
                    : PosixFile.error(errno, "link the copy to '\(path)'")
            }
            try syncDirectory(of: path)
        }
    }

    /// Writes `tables` as a new database at `building` (whatever was there is removed first),
    /// committed, synced and closed, with no file beside it: a file complete on disk.
    ///
    /// - Parameter progress: called now and then with the rows copied so far and the rows in all.
    static func buildCopy(
        of tables: [CopiedTable], at building: String, encryptionKey: EncryptionKey?,
        progress: (_ copiedRows: UInt64, _ totalRows: UInt64) -> Void = { _, _ in }
    ) throws {
        removeBuilding(building)
        let total = tables.reduce(UInt64(0)) { $0 + UInt64($1.rows.count) }
        var copied: UInt64 = 0
        do {
            let copy = try Database.open(path: building, encryptionKey: encryptionKey)
            try copy.write { transaction in
                for table in tables {
                    try fill(transaction.createTable(table.name), from: table) {
                        copied += 1
                        if copied % 4096 == 0 { progress(copied, total) }
                    }
                }
            }
            progress(total, total)
        }
        // The handle is gone: its commit is in the file (a logged one was checkpointed into it).
        for file in companionSuffixes.map({ building + $0 }) { unlink(file) }
    }

    /// Removes a copy under construction and the files beside it.
    static func removeBuilding(_ building: String) {
        for file in [building] + companionSuffixes.map({ building + $0 }) { unlink(file) }
    }

    private static func fill(_ writer: TableWriter, from table: CopiedTable, copiedRow: () -> Void) throws {
        try table.rows.scan(0...UInt64.max) { key, row in
            try writer.insert(try row.decoded(), forKey: key)
            copiedRow()
            return true
        }
        writer.handOutKeys(from: table.nextKey)
        for index in table.indexes { try writer.addIndex(on: index.column, unique: index.unique) }
    }

    static func syncDirectory(of path: String) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let descriptor = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PosixFile.error(errno, "open the directory of '\(path)'") }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw PosixFile.error(errno, "sync the directory of '\(path)'") }
    }
}
