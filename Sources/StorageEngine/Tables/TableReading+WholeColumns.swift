import Synchronization

/// A stored table's columns each joined into one packed array of every row (a `LeafColumn` of
/// the whole table), kept in the page cache under the table's root page, so that a count, a
/// filter or an aggregate asked again of the same version runs one loop over one array.
///
/// Read a leaf at a time, a scan of a table larger than the processor's caches waits, for
/// every leaf, on a chain of loads: the cache's entry for the leaf's column, the column, its
/// arrays. At 1,000,000 rows (5,400 leaves) that chain was most of a sum's time, although
/// `LeafReadAhead` starts it a leaf early; one array streams instead.
///
/// When a whole column is made: by the third scan by columns of a version, as it goes a leaf
/// at a time, from the leaves' columns it reads (`WholeTableJoin`). Making one copies every
/// leaf's column once more, so a version scanned once or twice (an app that writes between its
/// reads, or asks for a sum and an average of each version) never pays for it; a version
/// scanned more pays once and then streams.
///
/// Why it is always right: a root page never changes, and any change to the table writes a new
/// root, under another reference; the old version's whole columns stay right for its readers
/// and go unused by the others, and the cache evicts them as it evicts anything unused.
///
/// What it may cost: a scan's whole columns together take at most half the cache's capacity;
/// larger, the table is scanned a leaf at a time, as before, and the version's mark says not
/// to try again. They count against the capacity as the leaves' columns do, which stay kept as
/// well: after a change, the next version's whole columns are joined from them, not decoded
/// from the leaves.
enum WholeTableColumns {
    /// What the cache keeps column tag `tag` (`LeafColumn.tag(column:kind:)`) of the whole
    /// table under, with the root page's reference: apart from a leaf's own columns, should
    /// the root be a leaf.
    static func tag(_ tag: Int) -> Int { tag | 1 << 60 }

    /// What a version's mark is kept under, with its root page's reference.
    static let markTag = 1 << 61

    /// How many scans by columns of a version go a leaf at a time before one joins its columns.
    static let scansBeforeJoining = 2

    /// What the scans by columns of one version have done, kept under its root.
    final class Mark: Sendable {
        /// How many scans by columns began.
        let scans = Atomic(0)
        /// Set once a scan found the version's whole columns too large to keep.
        let refused = Atomic(false)
    }

    /// What a mark counts against the cache's capacity: the object, and its entry in the
    /// attachments' table, kept at most half full.
    static let markCost = 160

    /// Whether whole columns of `cost` bytes, together, may be kept in `cache`.
    static func fit(cost: Int, in cache: PageCache) -> Bool { cost <= cache.capacityBytes / 2 }
}

/// How a scan by columns reads a table (see `WholeTableColumns`).
enum WholeTablePlan {
    /// Every column the scan reads is kept whole: the scan reads these rows, once.
    case whole(LeafRows)
    /// A leaf at a time.
    case leaves
    /// A leaf at a time, giving each leaf's rows to the join as well, and then finishing it.
    case leavesJoining(WholeTableJoin)
}

/// The columns of a table's leaves, collected as a scan reads them, to be joined into whole
/// columns and kept under the table's root page (see `WholeTableColumns`).
final class WholeTableJoin {
    private let root: PageRef
    private let mark: WholeTableColumns.Mark
    private let cache: PageCache
    /// The columns to join, their tags, and the cost of the whole columns the scan reads that
    /// are kept already.
    private let columns: [(column: Int, kind: LeafColumn.Kind)]
    private let tags: [Int]
    private let keptCost: Int
    private var parts: [[LeafColumn]]

    init(root: PageRef, mark: WholeTableColumns.Mark, cache: PageCache, columns: [(column: Int, kind: LeafColumn.Kind)], tags: [Int], keptCost: Int) {
        self.root = root
        self.mark = mark
        self.cache = cache
        self.columns = columns
        self.tags = tags
        self.keptCost = keptCost
        parts = Array(repeating: [], count: columns.count)
    }

    /// Keeps each of the columns to join of the leaf `rows` are of, the next in key order.
    func collect(_ rows: LeafRows) throws {
        for (index, wanted) in columns.enumerated() { parts[index].append(try rows.column(wanted.column, wanted.kind)) }
    }

    /// Joins the columns collected, one per leaf of the table, and keeps them under the root if
    /// they fit; else marks the version refused.
    func finish() {
        var joined: [LeafColumn] = []
        for (index, wanted) in columns.enumerated() {
            guard let column = LeafColumn.joined(parts[index], kind: wanted.kind) else { return refuse() }
            joined.append(column)
        }
        guard WholeTableColumns.fit(cost: keptCost + joined.reduce(0) { $0 + $1.cost }, in: cache) else { return refuse() }
        for (tag, column) in zip(tags, joined) {
            cache.attach(column, to: root, tag: WholeTableColumns.tag(tag), cost: column.cost)
        }
    }

    private func refuse() {
        mark.refused.store(true, ordering: .relaxed)
    }
}

extension TableReading {
    /// How a scan by columns `wanted` reads the table (see `WholeTableColumns`): whole if every
    /// column is kept whole; a leaf at a time, joining the columns not kept, on the version's
    /// third scan if they would fit; a leaf at a time otherwise, and in a table changed in a
    /// write transaction and not stored.
    func wholeTablePlan(reading wanted: [(column: Int, kind: LeafColumn.Kind)]) -> WholeTablePlan {
        guard case .stored(let root) = rowTree.rootChild, !root.isNull, !wanted.isEmpty else { return .leaves }
        let store = rowTree.store
        let cache = store.cache
        let (columns, tags) = LeafColumn.distinct(wanted)
        var kept = [LeafColumn?](repeating: nil, count: tags.count)
        var found: WholeTableColumns.Mark?
        cache.attachments(to: root, tags: tags.map(WholeTableColumns.tag) + [WholeTableColumns.markTag]) { index, object in
            if index < tags.count { kept[index] = object as? LeafColumn } else { found = object as? WholeTableColumns.Mark }
        }
        if let all = Self.unwrapped(kept) { return .whole(LeafRows(wholeTable: all, tags: tags, store: store)) }

        guard let mark = found else {
            let mark = WholeTableColumns.Mark()
            mark.scans.store(1, ordering: .relaxed)
            cache.attach(mark, to: root, tag: WholeTableColumns.markTag, cost: WholeTableColumns.markCost)
            return .leaves
        }
        let scans = mark.scans.add(1, ordering: .relaxed).newValue
        guard scans > WholeTableColumns.scansBeforeJoining, !mark.refused.load(ordering: .relaxed) else { return .leaves }
        let missing = kept.indices.filter { kept[$0] == nil }
        let keptCost = kept.reduce(0) { $0 + ($1?.cost ?? 0) }
        // A number column's cost is known from the row count, before any leaf is read.
        let numbers = missing.filter { columns[$0].kind != .string }.count * (count * 8 + count / 8)
        guard WholeTableColumns.fit(cost: keptCost + numbers, in: cache) else {
            mark.refused.store(true, ordering: .relaxed)
            return .leaves
        }
        return .leavesJoining(WholeTableJoin(
            root: root, mark: mark, cache: cache, columns: missing.map { columns[$0] }, tags: missing.map { tags[$0] }, keptCost: keptCost))
    }

    private static func unwrapped(_ columns: [LeafColumn?]) -> [LeafColumn]? {
        var all: [LeafColumn] = []
        for column in columns {
            guard let column else { return nil }
            all.append(column)
        }
        return all
    }
}
