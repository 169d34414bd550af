extension TreeReading {
    /// Calls `body` with each leaf in key order and its page's reference, until it returns
    /// false. The reference is nil for a leaf a write transaction changed and has not stored:
    /// only a stored leaf can have things derived from it kept in the page cache (see
    /// `PageCache.attach(_:to:tag:cost:)`).
    package func forEachLeaf(_ body: (Leaf, PageRef?) throws -> Bool) throws {
        _ = try forEachLeaf(rootChild, body)
    }

    private func forEachLeaf(_ child: Child, _ body: (Leaf, PageRef?) throws -> Bool) throws -> Bool {
        switch try node(child) {
        case .branch(let branch):
            for position in branch.children.indices {
                guard try forEachLeaf(branch.children[position], body) else { return false }
            }
            return true
        case .leaf(let leaf):
            guard case .stored(let ref) = child, !ref.isNull else { return try body(leaf, nil) }
            return try body(leaf, ref)
        }
    }
}
