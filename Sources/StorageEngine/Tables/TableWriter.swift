/// A table inside a write transaction: rows and indexes change together, and every change is
/// recorded in the transaction's changeset.
///
/// Every check that can fail (a unique index already holding a value) runs before anything is
/// changed, so a thrown error leaves the table as it was and the transaction usable.
package final class TableWriter: TableReading {
    package let name: String
    // Exclusivity is unchecked on the state every row change touches: a transaction is used
    // by one thread, and no access to these overlaps another.
    @exclusivity(unchecked) package private(set) var roots: TableRoots
    package let rowTree: MutableTree
    @exclusivity(unchecked) var indexTrees = IndexTrees()
    /// Posting trees changed in this transaction (see `PostingList`), by index column and value.
    @exclusivity(unchecked) var postings: [PostingID: DirtyPosting] = [:]
    let space: TransactionSpace
    let changes: ChangeRecorder.Entry
    /// The transaction's redo recorder (see `RedoRecord`).
    let redo: RedoRecorder
    @exclusivity(unchecked) package internal(set) var isModified = false
    /// Reused to encode index buckets, so that inserting a row allocates no buffer.
    @exclusivity(unchecked) var scratch = ByteWriter(capacity: 256)
    /// Memory rows and short index buckets are encoded into in place (`withRoom`):
    /// appending to `scratch` checks the array's uniqueness and capacity at every byte, which
    /// was a seventh of inserting a row.
    @exclusivity(unchecked) private var room = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)

    init(name: String, roots: TableRoots, space: TransactionSpace, recorder: ChangeRecorder, redo: RedoRecorder) {
        self.name = name
        self.redo = redo
        self.roots = roots
        self.space = space
        self.changes = recorder.entry(for: name)
        self.rowTree = MutableTree(root: roots.rows, space: space)
        for index in roots.indexes {
            indexTrees[index.column] = (MutableTree(root: index.root, space: space), index.unique)
        }
    }

    deinit { room.deallocate() }

    /// Calls `body` with this writer's scratch memory, at least `size` bytes of it.
    func withRoom<Result>(_ size: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        if room.count < size {
            room.deallocate()
            room = .allocate(byteCount: Swift.max(size, room.count * 2), alignment: 8)
        }
        return try body(room)
    }

    package var count: Int { Int(roots.rowCount) }
    package var nextKey: UInt64 { roots.nextKey }

    package func index(on column: Int) -> (tree: MutableTree, unique: Bool)? {
        indexTrees[column]
    }

    // MARK: Rows

    /// Inserts a row under a new key (one more than any key handed out before) and returns it.
    @discardableResult
    package func insert(_ values: [RowValue]) throws -> UInt64 {
        let key = roots.nextKey
        try insert(values, forKey: key)
        return key
    }

    /// Makes `key` the next key `insert` hands out, if it is past every key handed out yet
    /// (a copy keeps the keys its source would hand out, so none is ever reused).
    package func handOutKeys(from key: UInt64) {
        guard key > roots.nextKey else { return }
        roots.nextKey = key
        isModified = true
    }

    /// Inserts a row under `key`, which must not hold a row.
    package func insert(_ values: [RowValue], forKey key: UInt64) throws {
        require(key > 0, "row keys start at 1")
        // Keys at or past `nextKey` were never handed out, so only older keys need a lookup.
        guard try key >= roots.nextKey || !rowTree.contains(key) else {
            throw StorageError(.duplicateKey, "table '\(name)' already has a row with key \(key)")
        }
        if !indexTrees.isEmpty { try addToIndexes(values, key: key) }
        try withRoom(RowCodec.maximumEncodedSize(values)) { room in
            var writer = UnsafeByteWriter(room)
            RowCodec.encode(values, into: &writer)
            let row = UnsafeRawBufferPointer(rebasing: room[..<writer.count])
            try rowTree.append(key, row)
            redo.record(.insert(table: name, key: key, row: Array(row)), rowBytes: row.count)
        }
        roots.rowCount += 1
        roots.nextKey = max(roots.nextKey, key + 1)
        isModified = true
        changes.recordInsert(key)
    }

    /// Replaces every column of row `key`. Returns false if there is no such row.
    @discardableResult
    package func update(_ key: UInt64, to values: [RowValue]) throws -> Bool {
        guard let old = try row(key) else { return false }
        let width = max(old.count, values.count)
        var changed: [Int] = []
        for column in 0..<width where !(column < old.count ? old[column] : .null).isIdentical(to: column < values.count ? values[column] : .null) {
            changed.append(column)
        }
        guard !changed.isEmpty else { return true }
        try checkUnique(values, excluding: key, columns: changed)
        for column in changed where indexTrees[column] != nil {
            try removeFromIndex(column: column, key: key, value: column < old.count ? old[column] : .null)
            try addToIndex(column: column, key: key, value: column < values.count ? values[column] : .null)
        }
        try store(RowCodec.encode(values), forKey: key, changed: changed)
        return true
    }

    /// Puts the encoded `row` under `key`, whose columns `changed` changed.
    private func store(_ row: [UInt8], forKey key: UInt64, changed: [Int]) throws {
        try rowTree.put(key, row)
        redo.record(.update(table: name, key: key, row: row), rowBytes: row.count)
        isModified = true
        changes.recordModify(key, columns: changed)
    }

    /// Sets one column of row `key`. Returns false if there is no such row.
    @discardableResult
    package func set(_ key: UInt64, column: Int, to value: RowValue) throws -> Bool {
        // A column without an index (nor a uniqueness to check) is spliced into the row's bytes.
        if indexTrees[column] == nil {
            guard let replacement = try rowTree.withValue(forKey: key, { try RowCodec.replacingColumn(column, of: $0, with: value) }) else {
                return false
            }
            switch replacement {
            case .unchanged: return true
            case .replaced(let row):
                try store(row, forKey: key, changed: [column])
                return true
            case .pastTheRowsEnd: break
            }
        }
        guard var values = try row(key) else { return false }
        if column >= values.count { values.append(contentsOf: repeatElement(.null, count: column + 1 - values.count)) }
        values[column] = value
        return try update(key, to: values)
    }

    /// Deletes row `key`. Returns false if there is no such row.
    @discardableResult
    package func delete(_ key: UInt64) throws -> Bool {
        guard let old = try row(key) else { return false }
        for (column, _) in indexTrees {
            try removeFromIndex(column: column, key: key, value: column < old.count ? old[column] : .null)
        }
        try rowTree.delete(key)
        redo.record(.delete(table: name, key: key), rowBytes: 0)
        roots.rowCount -= 1
        isModified = true
        changes.recordDelete(key)
        return true
    }

    /// Deletes every row.
    package func deleteAll() throws {
        try changes.recordDeletes(increasing: keys())
        try rowTree.freeAll()
        redo.record(.deleteAll(table: name), rowBytes: 0)
        for column in indexTrees.keys { try clearIndex(column: column) }
        roots.rowCount = 0
        isModified = true
    }

    // MARK: Commit

    /// Encodes the dirty pages ahead of `flush()`; returns the space and page count they need.
    func prepareFlush() -> (bytes: UInt64, pages: Int) {
        ([rowTree] + indexTrees.values.map(\.tree)).reduce((0, 0)) { total, tree in
            let part = tree.prepareFlush()
            return (total.0 + part.bytes, total.1 + part.pages)
        }
    }

    /// Writes the table's dirty pages and returns its new roots. `finalizeIndexes()` must
    /// have run first.
    func flush() throws -> TableRoots {
        roots.rows = try rowTree.flush()
        roots.indexes = try indexTrees.keys.sorted().map { column in
            let index = indexTrees[column]!
            return IndexRoots(column: column, unique: index.unique, root: try index.tree.flush())
        }
        return roots
    }

    /// Keeps the table's dirty nodes in memory (see `MutableTree.flushToMemory`) and returns
    /// its new roots. `finalizeIndexes()` must have run first.
    func flushToMemory() -> TableRoots {
        roots.rows = rowTree.flushToMemory()
        roots.indexes = indexTrees.keys.sorted().map { column in
            let index = indexTrees[column]!
            return IndexRoots(column: column, unique: index.unique, root: index.tree.flushToMemory())
        }
        return roots
    }

    /// Makes every node of the table held in memory dirty, for a checkpoint to write.
    func makeHeldNodesDirty() throws {
        try rowTree.makeHeldNodesDirty()
        for (_, index) in indexTrees { try index.tree.makeHeldNodesDirty() }
        if rowTree.isModified || indexTrees.values.contains(where: { $0.tree.isModified }) { isModified = true }
    }

    /// Frees every page of the table (when it is dropped).
    func freeAll() throws {
        try rowTree.freeAll()
        for column in indexTrees.keys { try clearIndex(column: column) }
    }
}

/// Collects the changeset of one write transaction: each table records into its own entry,
/// found by name once when the table is opened rather than on every row.
final class ChangeRecorder {
    final class Entry {
        @exclusivity(unchecked) var changes = TableChangeset()
        /// False once the transaction stopped recording row changes (see
        /// `WriteTransaction.stopRecordingRowChanges()`).
        @exclusivity(unchecked) var isRecording = true

        @inline(__always) func recordInsert(_ key: UInt64) {
            if isRecording { changes.recordInsert(key) }
        }

        @inline(__always) func recordDelete(_ key: UInt64) {
            if isRecording { changes.recordDelete(key) }
        }

        func recordDeletes(increasing keys: @autoclosure () throws -> [UInt64]) rethrows {
            if isRecording { changes.recordDeletes(increasing: try keys()) }
        }

        @inline(__always) func recordModify(_ key: UInt64, columns: some Sequence<Int>) {
            if isRecording { changes.recordModify(key, columns: columns) }
        }
    }

    private var isRecording = true

    /// By table, found by a search of the names (see `WriteTransaction.tables`).
    private var entries: [(table: String, entry: Entry)] = []

    func entry(for table: String) -> Entry {
        if let found = entries.first(where: { $0.table == table }) { return found.entry }
        let entry = Entry()
        entry.isRecording = isRecording
        entries.append((table, entry))
        return entry
    }

    /// Stops recording row changes, and forgets those recorded so far.
    func stopRecording() {
        isRecording = false
        for (_, entry) in entries {
            entry.isRecording = false
            entry.changes = TableChangeset()
        }
    }

    var changeset: Changeset {
        var changeset = Changeset()
        for (table, entry) in entries where !entry.changes.isEmpty { changeset.tables[table] = entry.changes }
        return changeset
    }
}
