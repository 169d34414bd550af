extension TreeReading {
    /// Calls `body` with each leaf in key order, until it returns false: the leaf's page
    /// reference (nil for a leaf a write transaction changed and has not stored), and the leaf
    /// itself, or nil for a stored leaf that `isKnownLeaf` recognised by its reference, which
    /// is then not read: a reader that keeps what it derives from leaves (see
    /// `PageCache.attach(_:to:tag:cost:)`) reads only the leaves it has nothing kept for.
    package func forEachLeaf(isKnownLeaf: (PageRef) -> Bool, _ body: (PageRef?, Leaf?) throws -> Bool) throws {
        _ = try forEachLeaf(rootChild, isKnownLeaf, body)
    }

    private func forEachLeaf(_ child: Child, _ isKnownLeaf: (PageRef) -> Bool, _ body: (PageRef?, Leaf?) throws -> Bool) throws -> Bool {
        var ref: PageRef?
        if case .stored(let stored) = child, !stored.isNull {
            // Only leaves have things kept for them: a reference that has one is a leaf's.
            if isKnownLeaf(stored) { return try body(stored, nil) }
            ref = stored
        }
        switch try node(child) {
        case .branch(let branch):
            for position in branch.children.indices {
                guard try forEachLeaf(branch.children[position], isKnownLeaf, body) else { return false }
            }
            return true
        case .leaf(let leaf):
            return try body(ref, leaf)
        }
    }
}
