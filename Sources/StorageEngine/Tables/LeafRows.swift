/// The rows of one leaf as a scan by columns reads them: their columns as packed arrays
/// (`LeafColumn`), kept in the page cache under the leaf's reference when it is stored, and
/// the leaf itself, read only when a column is not kept or the leaf's keys are wanted.
///
/// A scan makes two, which take turns (`LeafReadAhead`), and moves them from leaf to leaf
/// (`move(to:leaf:)`): not one allocated and freed per leaf of every count and sum.
///
/// Its state is unchecked for exclusive access: one scan uses it, on one thread, and the
/// checks were about a twentieth of a sum's time.
final class LeafRows {
    @exclusivity(unchecked) private(set) var ref: PageRef?
    let store: PageStore
    @exclusivity(unchecked) private var loaded: Leaf?
    /// The number of rows, once a column or the leaf has said.
    @exclusivity(unchecked) private var knownCount: Int?
    /// The tags of the columns a read-ahead looks up (`findWanted()`), and what it
    /// found for each (nil until it has looked, or if the cache does not keep the column).
    private let wanted: [Int]
    @exclusivity(unchecked) private var found: [LeafColumn?]

    /// The rows of the leaf at `ref`, given as `leaf` if it was read already; `wanted` are the
    /// tags of the columns `findWanted()` looks up (`LeafColumn.tag(column:kind:)`).
    init(ref: PageRef?, leaf: Leaf?, store: PageStore, wanted: [Int] = []) {
        self.store = store
        self.wanted = wanted
        found = Array(repeating: nil, count: wanted.count)
        move(to: ref, leaf: leaf)
    }

    /// The rows of a whole table, as `columns` hold them, each kept under its tag in `tags`
    /// (see `WholeTableColumns`): every column the scan reads, since there is no leaf to build
    /// one from.
    init(wholeTable columns: [LeafColumn], tags: [Int], store: PageStore) {
        require(!columns.isEmpty && columns.count == tags.count, "a whole table's rows need each column they are read by")
        self.store = store
        wanted = tags
        found = columns
        knownCount = columns[0].count
    }

    /// Makes these the rows of the leaf at `ref`, given as `leaf` if it was read already,
    /// forgetting the leaf they were of.
    func move(to ref: PageRef?, leaf: Leaf?) {
        require(ref != nil || leaf != nil, "LeafRows needs the leaf of a page not stored")
        self.ref = ref
        loaded = leaf
        knownCount = leaf?.count
        for index in found.indices where found[index] != nil { found[index] = nil }
    }

    /// Looks up, under one lock, the wanted columns the cache keeps for the leaf, for
    /// `column(_:_:)` to hand out, and starts loading their arrays (see `LeafReadAhead`).
    func findWanted() {
        guard let ref else { return }
        store.cache.attachments(to: ref, tags: wanted) { index, object in
            guard let column = object as? LeafColumn else { return }
            found[index] = column
            column.prefetch()
        }
    }

    /// The leaf, read through the page store the first time it is asked for; kept by the
    /// cache if `caching` (see `PageStore.node(_:caching:)`).
    func leaf(caching: Bool = true) throws -> Leaf {
        if let loaded { return loaded }
        guard let ref else { stopProgram("a whole table's rows have no leaf: read them only by the columns they were made with") }
        let node = try store.node(ref, caching: caching)
        guard case .leaf(let leaf) = node else {
            throw StorageError.corrupted("a page kept as a leaf's is a branch", at: ref.offset)
        }
        loaded = leaf
        knownCount = leaf.count
        return leaf
    }

    /// The number of rows.
    func count() throws -> Int {
        if let knownCount { return knownCount }
        return try leaf().count
    }

    /// Column `column` of the rows read as `kind`: the one kept for the leaf's page if there
    /// is one, otherwise built from the leaf, and kept if it is stored. A leaf read to build a
    /// column is not kept by the cache: a scan by columns wants the columns kept, and in a
    /// table whose leaves and columns did not fit the cache together, the leaves a first sum
    /// read pushed out columns it had just built, so the second sum read pages again.
    func column(_ column: Int, _ kind: LeafColumn.Kind) throws -> LeafColumn {
        let tag = LeafColumn.tag(column: column, kind: kind)
        if let index = wanted.firstIndex(of: tag), let kept = found[index] {
            knownCount = kept.count
            return kept
        }
        if let ref, let kept = store.cache.attachment(to: ref, tag: tag) as? LeafColumn {
            knownCount = kept.count
            return kept
        }
        let built = try LeafColumn.build(column, kind: kind, of: leaf(caching: false), store: store)
        if let ref { store.cache.attach(built, to: ref, tag: tag, cost: built.cost) }
        return built
    }
}
