extension TreeReading {
    /// Calls `body` with each leaf in key order, until it returns false: the leaf's page
    /// reference (nil for a leaf a write transaction changed and has not stored), and the leaf
    /// itself, or nil for a stored leaf this did not read. Every leaf of a tree is at the same
    /// depth, so once one leaf has been read, a stored node at its depth is a leaf and is
    /// handed over unread: a reader that needs only what it keeps of each leaf (see
    /// `PageCache.attach(_:to:tag:cost:)`) reads the rest itself, and decides whether the
    /// cache keeps them. (In a damaged file a branch can sit at that depth; whoever reads it as
    /// a leaf finds a branch, and reports the damage.)
    package func forEachLeafUnread(_ body: (PageRef?, Leaf?) throws -> Bool) throws {
        var leafDepth: Int?
        _ = try forEachLeafUnread(rootChild, depth: 0, &leafDepth, body)
    }

    private func forEachLeafUnread(
        _ child: Child, depth: Int, _ leafDepth: inout Int?, _ body: (PageRef?, Leaf?) throws -> Bool
    ) throws -> Bool {
        var ref: PageRef?
        if case .stored(let stored) = child, !stored.isNull {
            if depth == leafDepth { return try body(stored, nil) }
            ref = stored
        }
        switch try node(child) {
        case .branch(let branch):
            for position in branch.children.indices {
                guard try forEachLeafUnread(branch.children[position], depth: depth + 1, &leafDepth, body) else { return false }
            }
            return true
        case .leaf(let leaf):
            leafDepth = depth
            return try body(ref, leaf)
        }
    }
}
