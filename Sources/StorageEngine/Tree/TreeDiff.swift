/// The differences between two versions of a copy-on-write tree, found without reading what
/// they share.
///
/// Two versions of a tree share every page neither changed, and a shared page holds the same
/// entries in both. So the leaves whose references appear in both trees are skipped whole, and
/// only the entries of the other leaves are merged by key. The cost follows the pages that
/// changed (plus the branch pages, a few hundredths of the tree), not the size of the tree.
package enum TreeDiff {
    /// A difference: the key, its value in the old tree (nil if inserted), its value in the new
    /// tree (nil if deleted). Values that differ only in where they are stored still compare
    /// equal, as overflow values are compared by their pages' checksums.
    package typealias Visitor = (UInt64, [UInt8]?, [UInt8]?) throws -> Void

    package static func diff(_ old: TreeReader, _ new: TreeReader, _ body: Visitor) throws {
        guard old.root != new.root else { return }
        let oldLeaves = try leafRefs(of: old)
        let newLeaves = try leafRefs(of: new)
        let shared = Set(oldLeaves).intersection(newLeaves)
        var oldEntries = try entries(of: oldLeaves.filter { !shared.contains($0) }, store: old.store)
        var newEntries = try entries(of: newLeaves.filter { !shared.contains($0) }, store: new.store)
        oldEntries.reverse()
        newEntries.reverse()
        while let oldEntry = oldEntries.last, let newEntry = newEntries.last {
            if oldEntry.key < newEntry.key {
                try body(oldEntry.key, oldEntry.value, nil)
                oldEntries.removeLast()
            } else if newEntry.key < oldEntry.key {
                try body(newEntry.key, nil, newEntry.value)
                newEntries.removeLast()
            } else {
                if oldEntry.value != newEntry.value { try body(oldEntry.key, oldEntry.value, newEntry.value) }
                oldEntries.removeLast()
                newEntries.removeLast()
            }
        }
        for entry in oldEntries.reversed() { try body(entry.key, entry.value, nil) }
        for entry in newEntries.reversed() { try body(entry.key, nil, entry.value) }
    }

    /// The references of every leaf, in key order, reading branch pages only.
    private static func leafRefs(of tree: TreeReader) throws -> [PageRef] {
        guard !tree.root.isNull else { return [] }
        // All leaves are at one depth: find it along the leftmost path, then collect the
        // children of the lowest branches without reading them.
        var height = 1
        var probe = tree.root
        while case .branch(let branch) = try tree.store.node(probe), case .stored(let first) = branch.children[0] {
            height += 1
            probe = first
        }
        var leaves: [PageRef] = []
        func visit(_ ref: PageRef, depth: Int) throws {
            guard depth < height else {
                leaves.append(ref)
                return
            }
            guard case .branch(let branch) = try tree.store.node(ref) else {
                throw StorageError.corrupted("a leaf sits above the tree's leaf level", at: ref.offset)
            }
            for case .stored(let child) in branch.children { try visit(child, depth: depth + 1) }
        }
        try visit(tree.root, depth: 1)
        return leaves
    }

    private static func entries(of leaves: [PageRef], store: PageStore) throws -> [(key: UInt64, value: [UInt8])] {
        var entries: [(key: UInt64, value: [UInt8])] = []
        for ref in leaves {
            guard case .leaf(let leaf) = try store.node(ref) else {
                throw StorageError.corrupted("expected a leaf while comparing versions", at: ref.offset)
            }
            for index in 0..<leaf.count {
                // The stored form: inline bytes, or the overflow descriptor (whose checksum
                // identifies the value), flagged so the two kinds never compare equal.
                var value = Array(leaf.bytes[leaf.valueRange(at: index)])
                value.append(leaf.isOverflow(at: index) ? 1 : 0)
                entries.append((leaf.keys[index], value))
            }
        }
        return entries
    }
}
