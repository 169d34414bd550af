/// A scan by columns' read-ahead: it takes the leaves in key order and hands each one's rows
/// (`LeafRows`) on a leaf later, having looked up the leaf's kept columns and started loading
/// their arrays, so that the loads overlap the work on the leaf before.
///
/// A leaf's columns are separate allocations, found through the cache (an entry, the column,
/// its arrays: one load waiting on the other), so a scan of a table larger than the
/// processor's caches waited on three misses a column a leaf before its loop could start.
/// Measured in realm-bench at 1,000,000 objects, a sum through a filter took about half the
/// time read ahead, and a whole column's sum or count stayed the same or came down a little.
/// A table whose columns stay in the processor's caches pays for the look-ups and the
/// prefetches: a tenth more time for the same sums at 100,000 objects, summed a hundred times
/// over.
struct LeafReadAhead {
    /// The tags of the columns the scan reads (`LeafColumn.tag(column:kind:)`).
    private let wanted: [Int]
    private let store: PageStore
    /// The rows of the leaf taken last, and of the one before, handed on: two objects that
    /// take turns.
    private var newest: LeafRows?
    private var previous: LeafRows?

    init(reading wanted: [(column: Int, kind: LeafColumn.Kind)], store: PageStore) {
        self.wanted = LeafColumn.distinct(wanted).tags
        self.store = store
    }

    /// Takes the next leaf (its reference, and the leaf if it was read), and returns the rows
    /// of the leaf taken before it, if there is one: valid until the next call.
    mutating func take(_ ref: PageRef?, _ leaf: Leaf?) -> LeafRows? {
        let rows: LeafRows
        if let previous {
            rows = previous
            rows.move(to: ref, leaf: leaf)
        } else {
            rows = LeafRows(ref: ref, leaf: leaf, store: store, wanted: wanted)
        }
        if !wanted.isEmpty {
            rows.findWanted()
        }
        previous = newest
        newest = rows
        return previous
    }

    /// The rows of the last leaf taken, once: valid until the next call.
    mutating func last() -> LeafRows? {
        defer { newest = nil }
        return newest
    }
}
