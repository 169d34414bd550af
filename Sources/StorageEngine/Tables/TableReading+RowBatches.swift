extension TableReading {
    /// The leaf of the row tree holding the first row at `key` or after, and that row's index in
    /// it; nil past the last row.
    ///
    /// The leaf is the page cache's (or the transaction's) own, not a copy: its arrays are
    /// shared, and stay as they are for whoever holds them, since a change to the tree copies a
    /// shared array before changing it. A scan hands its rows out in place this way, each
    /// object's bytes in the leaf, without copying them.
    package func rowLeaf(from key: UInt64) throws -> (leaf: Leaf, start: Int)? {
        try rowTree.leaf(from: key)
    }
}
