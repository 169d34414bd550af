/// A child pointer inside a tree that a write transaction is changing.
///
/// Stored children are immutable pages; dirty children are indices into the transaction's arrays of
/// copied nodes, which are written out (and become stored) at commit.
package enum Child: Sendable, Equatable {
    case stored(PageRef)
    case dirtyLeaf(Int)
    case dirtyBranch(Int)
}

/// A B+tree interior node: `keys[i]` separates `children[i]` (keys below it) from `children[i + 1]`
/// (keys at or above it).
package struct Branch: Sendable {
    package var keys: [UInt64] = []
    package var children: [Child] = []

    package init(keys: [UInt64] = [], children: [Child] = []) {
        self.keys = keys
        self.children = children
    }

    /// The child whose range holds `key`: the number of separators not greater than `key`
    /// (see `KeySearch`).
    @inline(__always)
    func childIndex(for key: UInt64) -> Int {
        keys.withUnsafeBufferPointer { KeySearch.childIndex(for: key, separators: $0) }
    }
}
