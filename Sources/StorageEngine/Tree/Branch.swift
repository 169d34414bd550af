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
    package func childIndex(for key: UInt64) -> Int {
        keys.withUnsafeBufferPointer { KeySearch.childIndex(for: key, separators: $0) }
    }
}

/// A decoded page of a tree.
package enum Node: Sendable {
    case leaf(Leaf)
    case branch(Branch)
}

/// Sizes that shape the trees.
package enum TreeLayout {
    /// A leaf is split once its encoded body passes this size (before compression).
    package static let maxLeafBytes = 8 * 1024
    /// A branch is split once it has more children than this.
    package static let maxBranchChildren = 512
    /// Values longer than this are stored in an overflow page of their own.
    package static let overflowThreshold = maxLeafBytes / 4
    /// A node smaller than this after a delete is merged with a neighbour if they fit together.
    package static let minLeafBytes = maxLeafBytes / 4
    package static let minBranchChildren = maxBranchChildren / 4
}

/// What a leaf stores in place of a value that lives in an overflow page.
package struct OverflowDescriptor {
    package var page: PageRef
    package var valueLength: UInt32

    package static let encodedSize = PageRef.encodedSize + 4

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.encodedSize)
        page.write(to: &writer)
        writer.appendUInt32(valueLength)
        return writer.bytes
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, origin: UInt64) throws -> OverflowDescriptor {
        var reader = ByteReader(bytes, origin: origin)
        let page = try PageRef.read(from: &reader)
        let length = try reader.readUInt32()
        return OverflowDescriptor(page: page, valueLength: length)
    }
}
