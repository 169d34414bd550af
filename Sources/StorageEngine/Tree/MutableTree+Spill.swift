/// Writing a large transaction's dirty leaves before its commit, so that its memory stays
/// bounded.
///
/// A transaction that changes a row in every leaf of a large table (a migration transforming
/// every object, an update of every row) would otherwise hold a dirty copy of every leaf until
/// the commit: the whole table, decoded, in memory. Past `maxLeavesInMemory` dirty leaves, the
/// tree writes them as pages into space no committed version uses (as a commit would, so no
/// version a crash falls back to is touched: invariant 1), records them for the commit record,
/// and keeps only their references. A spilled leaf changed again is copied back like any stored
/// leaf, its spilled page freed. The rightmost dirty leaf stays, for appends to go on.
///
/// Only changes in place (`put`, `delete`) spill. A bulk append's full leaves are written ahead
/// already (`EarlyPageWrites`) and its commit takes those pages; spilling them would close the
/// writes ahead (their pages must be known intact to be kept), and the extents granted for the
/// leaves filled after that would be left as holes: measured, the file after
/// `EngineBulkInsert` grew from 22 MB to 26 MB. An append-only transaction keeps its leaves
/// until the commit, as before.
extension MutableTree {
    /// The most dirty leaves a tree holds before it spills them, by default: 16 MiB of 8 KiB
    /// leaves (`maxLeavesInMemory` of a tree; tests lower it).
    static let defaultMaxLeavesInMemory = 2048

    /// Spills the dirty leaves if more than `maxLeavesInMemory` were made since the last spill.
    @inline(__always)
    func spillIfNeeded() throws {
        if leaves.count - leavesAtLastSpill > maxLeavesInMemory { try spillDirtyLeaves() }
    }

    /// Writes every dirty leaf but the rightmost, and replaces each by the reference of its page.
    func spillDirtyLeaves() throws {
        leavesAtLastSpill = leaves.count
        guard case .dirtyBranch = root else { return }
        // What the bulk append's encoding made of its full leaves is used as the commit would.
        let early = earlyEncoding?.finish() ?? [:]
        earlyEncoding = nil
        root = try spill(root, early: early, keeping: try rightmostDirtyLeaf(of: root))
        spine = nil
        try space.flushWrites()
    }

    private func spill(_ child: Child, early: [Int: EarlyLeafEncoding.Result], keeping kept: Int?) throws -> Child {
        switch child {
        case .stored:
            return child
        case .dirtyBranch(let index):
            for position in branches[index].children.indices {
                branches[index].children[position] = try spill(branches[index].children[position], early: early, keeping: kept)
            }
            return child
        case .dirtyLeaf(let index):
            guard index != kept, leaves[index].count > 0 else { return child }
            let ref = try writeSpilled(index, early: early[index])
            store.cache.insert(.leaf(leaves[index]), for: ref, cost: leaves[index].encodedSize + 64)
            leaves[index] = Leaf()
            return .stored(ref)
        }
    }

    /// Writes leaf `index`: its page written ahead if that is still its page, else encoded.
    private func writeSpilled(_ index: Int, early: EarlyLeafEncoding.Result?) throws -> PageRef {
        if let early, early.leaf.sharesStorage(with: leaves[index]) {
            if let written = early.writtenAt, space.keepWrittenAhead(written) {
                space.recordWrittenAhead(written)
                return written
            }
            if !early.page.isEmpty {
                var stored = early.page
                return try space.writeSpilled(&stored)
            }
        }
        var (stored, _) = LeafCompression.page(for: leaves[index])
        return try space.writeSpilled(&stored)
    }

    private func rightmostDirtyLeaf(of child: Child) throws -> Int? {
        switch child {
        case .stored: nil
        case .dirtyLeaf(let index): index
        case .dirtyBranch(let index): try rightmostDirtyLeaf(of: branches[index].children.last ?? .stored(.null))
        }
    }
}
