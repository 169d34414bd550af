/// The rows of one leaf as a scan by columns reads them: their columns as packed arrays
/// (`LeafColumn`), kept in the page cache under the leaf's reference when it is stored, and
/// the leaf itself, read only when a column is not kept or the leaf's keys are wanted.
final class LeafRows {
    let ref: PageRef?
    let store: PageStore
    private var loaded: Leaf?
    /// The number of rows, once a column or the leaf has said.
    private var knownCount: Int?

    /// A column the cache keeps for the leaf, found before the leaf was (see `kept(_:_:of:in:)`),
    /// with its tag.
    private let found: (tag: Int, column: LeafColumn)?

    /// The rows of the leaf at `ref`, given as `leaf` if it was read already, and one of its
    /// columns if the cache was found to keep it.
    init(ref: PageRef?, leaf: Leaf?, store: PageStore, found: (tag: Int, column: LeafColumn)? = nil) {
        require(ref != nil || leaf != nil, "LeafRows needs the leaf of a page not stored")
        self.ref = ref
        self.store = store
        self.found = found
        loaded = leaf
        knownCount = leaf?.count ?? found?.column.count
    }

    /// The leaf, read through the page store the first time it is asked for.
    func leaf() throws -> Leaf {
        if let loaded { return loaded }
        let node = try store.node(ref.unsafelyUnwrapped)
        guard case .leaf(let leaf) = node else {
            throw StorageError.corrupted("a page kept as a leaf's is a branch", at: ref.unsafelyUnwrapped.offset)
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
    /// is one, otherwise built from the leaf, and kept if it is stored.
    func column(_ column: Int, _ kind: LeafColumn.Kind) throws -> LeafColumn {
        let tag = LeafColumn.tag(column: column, kind: kind)
        if let found, found.tag == tag { return found.column }
        if let ref, let kept = store.cache.attachment(to: ref, tag: tag) as? LeafColumn {
            knownCount = kept.count
            return kept
        }
        let built = try LeafColumn.build(column, kind: kind, of: leaf(), store: store)
        if let ref { store.cache.attach(built, to: ref, tag: tag, cost: built.cost) }
        return built
    }

    /// Column `column` read as `kind` of the leaf at `ref`, if the cache keeps it, with its
    /// tag: given to `init` so that the column is found once per leaf.
    static func kept(_ column: Int, _ kind: LeafColumn.Kind, of ref: PageRef, in store: PageStore) -> (tag: Int, column: LeafColumn)? {
        let tag = LeafColumn.tag(column: column, kind: kind)
        return (store.cache.attachment(to: ref, tag: tag) as? LeafColumn).map { (tag, $0) }
    }
}
