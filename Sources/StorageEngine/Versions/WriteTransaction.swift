/// The one write transaction of a database at a time: copy-on-write changes to the newest
/// version, made durable by `commit()` or dropped by `rollback()`.
///
/// Nothing a transaction does is visible to anyone, and nothing it writes lands where a
/// committed version can see it, until the header flip at the end of `commit()`.
package final class WriteTransaction {
    /// The version this transaction started from; pinned until the transaction ends.
    package let base: Snapshot
    private let database: Database
    private let space: TransactionSpace
    private let recorder = ChangeRecorder()
    private var catalog: Catalog
    private var tables: [String: TableWriter] = [:]
    private var droppedTables = false
    private let baseHeader: FileHeader
    package private(set) var isActive = true

    init(database: Database, header: FileHeader, base: Snapshot, freeSpace: FreeSpace) {
        self.database = database
        self.base = base
        self.baseHeader = header
        self.catalog = base.catalog
        self.space = TransactionSpace(store: base.store, freeSpace: freeSpace)
    }

    deinit {
        if isActive { database.endWrite() }
    }

    /// The changes made so far.
    package var changeset: Changeset { recorder.changeset }

    package var tableNames: [String] { catalog.tables.keys.sorted() }

    /// The table named `name` for reading and writing, or nil if there is none.
    package func tableIfPresent(_ name: String) -> TableWriter? {
        precondition(isActive, "this write transaction has already ended; begin a new one")
        if let table = tables[name] { return table }
        guard let roots = catalog.tables[name] else { return nil }
        let table = TableWriter(name: name, roots: roots, space: space, recorder: recorder)
        tables[name] = table
        return table
    }

    /// The table named `name`.
    ///
    /// - Throws: `noSuchTable` if there is none.
    package func table(_ name: String) throws -> TableWriter {
        guard let table = tableIfPresent(name) else {
            throw StorageError(.noSuchTable, "there is no table '\(name)'")
        }
        return table
    }

    /// The table named `name`, created empty if it does not exist.
    @discardableResult
    package func createTable(_ name: String) -> TableWriter {
        if let table = tableIfPresent(name) { return table }
        catalog.tables[name] = TableRoots()
        let table = tableIfPresent(name)!
        droppedTables = true  // the catalog changed even if no row is written
        return table
    }

    /// Drops the table named `name` and frees its pages.
    package func dropTable(_ name: String) throws {
        guard let table = tableIfPresent(name) else { return }
        try table.freeAll()
        tables[name] = nil
        catalog.tables[name] = nil
        droppedTables = true
    }

    /// Makes the transaction durable and visible, and returns the version it produced.
    ///
    /// The protocol (invariant 1): write every new page into free space; sync; write header
    /// slot 0; sync; copy the header into slot 1. A crash before the first sync finishes leaves
    /// both slots at the previous version; a torn slot 0 fails its checksum and slot 1 still
    /// holds the previous version; once slot 0 is synced the commit is durable and the copy into
    /// slot 1 only keeps a twin for the day one slot is damaged at rest.
    ///
    /// - Throws: an I/O error; the file and the database are then as they were before the
    ///   transaction, and the transaction is over.
    @discardableResult
    package func commit() throws -> CommitResult {
        precondition(isActive, "this write transaction has already ended; begin a new one")
        defer {
            isActive = false
            database.endWrite()
        }
        for table in tables.values where table.isModified || table.rowTree.isModified {
            catalog.tables[table.name] = try table.flush()
        }
        let changed = catalog != base.catalog || droppedTables || !space.freed.isEmpty
        guard changed else { return CommitResult(version: base.version, changeset: recorder.changeset) }

        let version = base.version + 1
        let catalogRef = try space.writePage(kind: .catalog, raw: catalog.encoded())
        space.free(baseHeader.catalog)
        space.free(baseHeader.freeList)
        var freeSpace = space.freeSpace
        freeSpace.retire(space.freed, atVersion: version)
        // The free list describes itself as allocated: size it first, then allocate, which can
        // only shorten the list (fixed-width fields), and pad the encoding to the size taken.
        let listSize = freeSpace.encodedSize
        let listOffset = freeSpace.allocate(PageCodec.headerSize + listSize)
        var listPage = PageCodec.encode(kind: .freeList, raw: freeSpace.encoded(paddedTo: listSize), compress: false)
        let listRef = PageCodec.seal(&listPage, at: listOffset)
        try space.flush()
        let file = base.store.file
        try file.write(listPage, at: listOffset)
        try file.sync()

        let header = FileHeader(version: version, catalog: catalogRef, freeList: listRef, end: freeSpace.end)
        do {
            try header.write(to: file, slot: 0)
            try file.sync()
        } catch {
            // The commit is reported as failed, so the file must not keep it: put the previous
            // header back (slot 1 still holds it too) before giving the error to the caller.
            try? baseHeader.write(to: file, slot: 0)
            throw error
        }
        // Durable from here on. The twin is redundancy only: if writing it fails, slot 1 keeps
        // the previous version, which slot 0 outranks, and the next commit writes both again.
        try? header.write(to: file, slot: 1)

        let result = CommitResult(version: version, changeset: recorder.changeset)
        database.shared.state.withLock { committed in
            committed.header = header
            committed.catalog = catalog
            committed.freeSpace = freeSpace
            committed.recentCommits.append(result)
            if committed.recentCommits.count > SharedFile.keptCommits { committed.recentCommits.removeFirst() }
        }
        return result
    }

    /// Drops every change. Pages the transaction wrote sit in space the committed version
    /// considers free, so there is nothing to undo on disk.
    package func rollback() {
        guard isActive else { return }
        isActive = false
        database.endWrite()
    }
}
