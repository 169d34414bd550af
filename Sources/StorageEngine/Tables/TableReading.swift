/// A row seen during a scan; valid only inside the scan's closure.
package struct RowView {
    package let bytes: UnsafeRawBufferPointer

    /// Decodes one column without decoding the others.
    @inline(__always)
    package func column(_ column: Int) throws -> RowValue {
        try RowCodec.decodeColumn(column, of: bytes)
    }

    /// Column `column` if it holds an integer; nil otherwise.
    @inline(__always)
    package func integer(_ column: Int) throws -> Int64? {
        try RowCodec.integer(column, of: bytes)
    }

    /// The UTF-8 bytes of string column `column` in place; nil if it holds no string.
    @inline(__always)
    package func stringBytes(_ column: Int) throws -> UnsafeRawBufferPointer? {
        try RowCodec.stringBytes(column, of: bytes)
    }

    /// Decodes every column into `values`, reusing its storage.
    @inline(__always)
    package func decode(into values: inout [RowValue]) throws {
        try RowCodec.decode(bytes, into: &values)
    }

    /// Calls `body` with each column's index and value, without building an array.
    @inline(__always)
    package func forEachColumn(_ body: (Int, RowValue) throws -> Void) throws {
        try RowCodec.forEachValue(in: bytes, body)
    }

    package func decoded() throws -> [RowValue] {
        try RowCodec.decode(bytes)
    }
}

/// Reading a table: shared by a snapshot's tables and a write transaction's.
package protocol TableReading {
    associatedtype Tree: TreeReading
    var name: String { get }
    var rowTree: Tree { get }
    /// The number of rows.
    var count: Int { get }
    /// The index on `column`, if there is one, and whether it is unique.
    func index(on column: Int) -> (tree: Tree, unique: Bool)?
    /// The row keys of a posting list found in the index on `column` for `value`.
    func postingKeys(_ list: PostingList, column: Int, value: RowValue) throws -> [UInt64]

    // Implemented once in the extension below. Declared here so that a call through
    // `any TableReading` reaches a copy specialised for the concrete table, not the generic
    // code that would build tuple and tree metadata at run time on every call.
    func hasIndex(on column: Int) -> Bool
    func contains(_ key: UInt64) throws -> Bool
    func row(_ key: UInt64) throws -> [RowValue]?
    func withRow<Result>(_ key: UInt64, _ body: (RowView) throws -> Result) throws -> Result?
    func copyRow(_ key: UInt64, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory?) throws -> ValueCopy
    func withRows(sortedKeys keys: UnsafeBufferPointer<UInt64>, _ body: (Int, RowView) throws -> Void) throws
    func total(ofColumn column: Int, where matches: ((RowView) throws -> Bool)?) throws -> (integers: Int128, reals: Double, count: Int)
    func value(_ key: UInt64, column: Int) throws -> RowValue?
    func scan(_ range: ClosedRange<UInt64>, _ body: (UInt64, RowView) throws -> Bool) throws
    func keys() throws -> [UInt64]
    func scanRowLeaves(from key: UInt64, _ body: (LeafEntries) throws -> Bool) throws
    func keys(where column: Int, equals value: RowValue) throws -> [UInt64]
    func keys(whereInteger column: Int, in bounds: ClosedRange<Int64>, nullMatches: Bool, _ matched: ((RowView) -> Void)?) throws -> [UInt64]
    func firstKey(where column: Int, equals value: RowValue) throws -> UInt64?
}

extension TableReading {
    package var isEmpty: Bool { count == 0 }

    package func contains(_ key: UInt64) throws -> Bool {
        try rowTree.contains(key)
    }

    /// Every column of row `key`, or nil if there is no such row.
    package func row(_ key: UInt64) throws -> [RowValue]? {
        try rowTree.withValue(forKey: key) { try RowCodec.decode($0) }
    }

    /// Calls `body` with row `key` as stored, or returns nil if there is no such row.
    package func withRow<Result>(_ key: UInt64, _ body: (RowView) throws -> Result) throws -> Result? {
        try rowTree.withValue(forKey: key) { try body(RowView(bytes: $0)) }
    }

    /// Copies row `key` as stored into `buffer` when it fits (see `ValueCopy`): a row read to
    /// be kept is copied once, straight from the page cache. A `directory` given learns the leaf
    /// found (see `LeafDirectory`).
    package func copyRow(
        _ key: UInt64, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory?
    ) throws -> ValueCopy {
        try rowTree.copyValue(forKey: key, into: buffer, noting: directory)
    }

    /// Calls `body` with the position in `keys` (ascending, repeats allowed) and the row of
    /// each key that has one, in order; one descent per node, not per key.
    package func withRows(sortedKeys keys: UnsafeBufferPointer<UInt64>, _ body: (Int, RowView) throws -> Void) throws {
        try rowTree.withValues(forSortedKeys: keys) { try body($0, RowView(bytes: $1)) }
    }

    /// The sum of the integers and of the doubles in `column` over every row, or over the rows
    /// `matches` holds for, and how many of those rows hold a number there: what `sum` and
    /// `average` of a class, or of a filter of it, read in one pass that builds no value for a
    /// plain number.
    package func total(
        ofColumn column: Int, where matches: ((RowView) throws -> Bool)? = nil
    ) throws -> (integers: Int128, reals: Double, count: Int) {
        let total = try foldRows(ColumnTotal()) { total, row in
            if try matches?(RowView(bytes: row)) ?? true { try total.add(column, of: row) }
        }
        return (total.integers, total.reals.total, total.count)
    }

    /// `body` applied to `initial` and every stored row in key order, a leaf at a time, its rows
    /// in one loop here rather than a call per row through the tree's scan. (The state is
    /// copied in and out per leaf: a variable the leaf's closure captures is checked for
    /// exclusive access on every use.)
    @inline(__always)
    private func foldRows<State>(_ initial: State, _ body: (inout State, UnsafeRawBufferPointer) throws -> Void) throws -> State {
        var state = initial
        try scanRowLeaves(from: 0) { leaf in
            guard let base = leaf.bytes.baseAddress else { return true }
            var leafState = state
            var start = leaf.valueStart(leaf.start)
            for index in leaf.start..<leaf.keys.count {
                let end = leaf.valueEnd(index)
                require(start <= end, "leaf value ends out of order")
                if leaf.isOverflow(index) {
                    _ = try rowTree.withValue(forKey: leaf.keys[index]) { try body(&leafState, $0) }
                } else {
                    try body(&leafState, UnsafeRawBufferPointer(start: base + start, count: end - start))
                }
                start = end
            }
            state = leafState
            return true
        }
        return state
    }

    /// The keys of the rows whose `column` holds an integer within `bounds`, or null (or
    /// nothing: a column added after the row was written) when `nullMatches`, in key order;
    /// `matched` sees each of those rows. A scan with the test inside the tree's loop, not a
    /// closure per row.
    package func keys(
        whereInteger column: Int, in bounds: ClosedRange<Int64>, nullMatches: Bool, _ matched: ((RowView) -> Void)?
    ) throws -> [UInt64] {
        var keys: [UInt64] = []
        try rowTree.scan { key, row in
            let holds: Bool
            if let number = try RowCodec.integer(column, of: row) {
                holds = bounds.contains(number)
            } else {
                holds = nullMatches
            }
            if holds {
                keys.append(key)
                matched?(RowView(bytes: row))
            }
            return true
        }
        return keys
    }

    /// One column of row `key`, decoded alone; nil if there is no such row.
    @inline(__always)
    package func value(_ key: UInt64, column: Int) throws -> RowValue? {
        try rowTree.withValue(forKey: key) { try RowCodec.decodeColumn(column, of: $0) }
    }

    /// Visits rows with keys in `range` in key order until `body` returns false.
    package func scan(
        _ range: ClosedRange<UInt64>, _ body: (UInt64, RowView) throws -> Bool
    ) throws {
        try rowTree.scan(range) { key, bytes in try body(key, RowView(bytes: bytes)) }
    }

    /// Visits the leaves of the row tree holding keys from `key` on, until `body` returns
    /// false: their rows in place, for a loop over many at once (`TreeReading.scanLeaves`).
    package func scanRowLeaves(from key: UInt64, _ body: (LeafEntries) throws -> Bool) throws {
        try rowTree.scanLeaves(from: key, body)
    }

    /// Visits every row in key order until `body` returns false.
    package func scan(_ body: (UInt64, RowView) throws -> Bool) throws {
        try scan(0...UInt64.max, body)
    }

    /// Every row key in order.
    package func keys() throws -> [UInt64] {
        try rowTree.allKeys(reserving: count)
    }

    package func hasIndex(on column: Int) -> Bool { index(on: column) != nil }

    /// The keys of the rows whose `column` equals `value`, in key order, through the index.
    ///
    /// - Precondition: `column` is indexed.
    package func keys(where column: Int, equals value: RowValue) throws -> [UInt64] {
        guard let (tree, _) = index(on: column) else {
            stopProgram("column \(column) of '\(name)' has no index; scan the table instead")
        }
        let found = try tree.withValue(forKey: IndexKey.of(value)) { try IndexBucket.postingList(for: value, in: $0) }
        guard let list = found ?? nil else { return [] }
        return try postingKeys(list, column: column, value: value)
    }

    /// The smallest key of the rows whose `column` equals `value`, through the index: a
    /// primary-key lookup, reading the bucket without decoding its other entries.
    ///
    /// - Precondition: `column` is indexed.
    package func firstKey(where column: Int, equals value: RowValue) throws -> UInt64? {
        guard let (tree, _) = index(on: column) else {
            stopProgram("column \(column) of '\(name)' has no index; scan the table instead")
        }
        let found = try tree.withValue(forKey: IndexKey.of(value)) { try IndexBucket.firstInlineKey(for: value, in: $0) }
        guard let (first, tree) = found ?? nil else { return nil }
        guard let tree else { return first }
        return try postingKeys(tree, column: column, value: value).first
    }

    /// The (value, keys) entries of the index on `column` whose index keys fall in `range`, in
    /// index order. Bucket entries sharing an index key are returned together; the caller
    /// checks exact bounds.
    package func indexEntries(
        on column: Int, in range: ClosedRange<UInt64>, _ body: (RowValue, [UInt64]) throws -> Bool
    ) throws {
        guard let (tree, _) = index(on: column) else {
            stopProgram("column \(column) of '\(name)' has no index; scan the table instead")
        }
        try tree.scan(range) { _, bytes in
            for entry in try IndexBucket.decode(bytes).entries {
                guard try body(entry.value, try postingKeys(entry.keys, column: column, value: entry.value)) else { return false }
            }
            return true
        }
    }
}

/// A table as one snapshot sees it. `Sendable`: it reads immutable pages only.
package struct TableReader: TableReading, Sendable {
    package let name: String
    package let roots: TableRoots
    package let rowTree: TreeReader
    private let store: PageStore

    package init(name: String, roots: TableRoots, store: PageStore) {
        self.name = name
        self.roots = roots
        self.store = store
        self.rowTree = TreeReader(store: store, root: roots.rows)
    }

    package var count: Int { Int(roots.rowCount) }
    package var nextKey: UInt64 { roots.nextKey }

    package func index(on column: Int) -> (tree: TreeReader, unique: Bool)? {
        guard let index = roots.indexes.first(where: { $0.column == column }) else { return nil }
        return (TreeReader(store: store, root: index.root), index.unique)
    }

    package func postingKeys(_ list: PostingList, column: Int, value: RowValue) throws -> [UInt64] {
        try list.keys(store: store)
    }
}

/// The sum of the integers and of the doubles of one column, and how many rows hold a number
/// there (`TableReading.total(ofColumn:)`).
private struct ColumnTotal {
    /// Wide enough that no table's integers overflow it (2^64 rows of Int64.max do not).
    var integers: Int128 = 0
    var reals = DoubleSum()
    var count = 0

    /// Adds column `column` of `row` if it holds a number; a plain double or a one-byte
    /// integer is read in place, anything else decoded.
    @inline(__always)
    mutating func add(_ column: Int, of row: UnsafeRawBufferPointer) throws {
        if let (tag, offset) = RowCodec.locate(column, in: row) {
            if tag == RowCodec.Tag.double.rawValue, offset + 8 <= row.count {
                // A NaN is left out of the count as `DoubleSum` leaves it out of the sum.
                if reals.add(Double(bitPattern: UInt64(littleEndian: row.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))) { count += 1 }
                return
            }
            if tag == RowCodec.Tag.positive.rawValue, row[offset] < 0x80 {
                integers &+= Int128(row[offset])
                count += 1
                return
            }
        }
        switch try RowCodec.decodeColumn(column, of: row) {
        case .int(let number): integers &+= Int128(number); count += 1
        case .double(let number): if reals.add(number) { count += 1 }
        default: break
        }
    }
}
