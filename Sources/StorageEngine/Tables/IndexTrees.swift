/// The indexes of a table being written, by column: a short array searched in order rather
/// than a dictionary, because every row change visits each of them and tables have a few.
struct IndexTrees: Sequence {
    typealias Index = (tree: MutableTree, unique: Bool)

    private var entries: [(column: Int, index: Index)] = [] {
        didSet {
            first = entries.first.map { ($0.column, .passUnretained($0.index.tree)) }
            hasMore = entries.count > 1
        }
    }
    /// The first entry's column and tree, the tree unretained (`entries` holds it): most tables
    /// have one index (a primary key), which the loops run per row reach without retaining
    /// `entries` for the loop, as iterating it does.
    private var first: (column: Int, tree: Unmanaged<MutableTree>)?
    private var hasMore = false

    /// The index on `column`; setting nil removes it.
    subscript(column: Int) -> Index? {
        get {
            for entry in entries where entry.column == column { return entry.index }
            return nil
        }
        set {
            let position = entries.firstIndex { $0.column == column }
            switch (position, newValue) {
            case (let position?, let index?): entries[position].index = index
            case (let position?, nil): entries.remove(at: position)
            case (nil, let index?): entries.append((column, index))
            case (nil, nil): break
            }
        }
    }

    var isEmpty: Bool { first == nil }

    /// The column and tree of the only index, the tree unretained; nil unless there is exactly one.
    var onlyIndex: (column: Int, tree: Unmanaged<MutableTree>)? { hasMore ? nil : first }

    /// Calls `body` with the column and tree of each index until it returns false, the tree
    /// borrowed without counting a reference to it: for the loops that run once per row.
    @inline(__always)
    func forEachTree(_ body: (Int, MutableTree) throws -> Bool) rethrows {
        guard let first, try first.tree._withUnsafeGuaranteedRef({ try body(first.column, $0) }) else { return }
        guard entries.count > 1 else { return }
        for position in 1..<entries.count {
            let column = entries[position].column
            let tree = Unmanaged.passUnretained(entries[position].index.tree)
            guard try tree._withUnsafeGuaranteedRef({ try body(column, $0) }) else { return }
        }
    }

    /// The indexed columns, in the order the indexes were added.
    var keys: [Int] { entries.map(\.column) }

    var values: [Index] { entries.map(\.index) }

    func makeIterator() -> some IteratorProtocol<(key: Int, value: Index)> {
        entries.lazy.map { (key: $0.column, value: $0.index) }.makeIterator()
    }
}
