/// A copy-on-write B+tree being changed by a write transaction.
///
/// The first change to a stored node copies it into `leaves` or `branches` and frees its page;
/// later changes edit the copy in place. Nothing stored is ever modified, so every snapshot
/// reading the old root keeps seeing exactly the old tree (invariant 2). `flush()` writes the
/// copies bottom-up at commit and returns the new root.
package final class MutableTree: TreeReading {
    package let store: PageStore
    let space: TransactionSpace
    // Exclusivity is unchecked on the node state every change touches: a tree is used by one
    // transaction on one thread, and no access to these overlaps another.
    @exclusivity(unchecked) var root: Child
    @exclusivity(unchecked) var leaves: [Leaf] = []
    @exclusivity(unchecked) var branches: [Branch] = []
    /// The dirty right edge of the tree, kept between calls to `append` (see MutableTree+BulkAppend).
    @exclusivity(unchecked) var spine: Spine?
    /// The last key given to `putOrAppend`, and how many calls in a row gave increasing keys.
    @exclusivity(unchecked) var lastPutKey: UInt64?
    @exclusivity(unchecked) var increasingPuts = 0
    /// The largest key under a stored root, read once by `isAfterLastKey`.
    @exclusivity(unchecked) var lastKeyOfStoredRoot: (root: PageRef, key: UInt64?)?
    /// Stored images of dirty leaves made by `prepareFlush()`, by index in `leaves`.
    private var encodedLeaves: [Int: [UInt8]] = [:]
    /// Dirty leaves whose pages were written ahead of the commit, and where (see `EarlyPageWrites`).
    private var writtenLeaves: [Int: PageRef] = [:]
    /// Leaves a bulk append filled in this transaction, and the encoding of those it handed
    /// over (see `EarlyLeafEncoding`).
    @exclusivity(unchecked) var filledLeaves = 0
    @exclusivity(unchecked) var earlyEncoding: EarlyLeafEncoding?
    /// How many leaves `leaves` had at the last spill, and how many more it may gain before
    /// the next (see MutableTree+Spill).
    @exclusivity(unchecked) var leavesAtLastSpill = 0
    var maxLeavesInMemory = MutableTree.defaultMaxLeavesInMemory
    /// (Unchecked too: set by every change, an appended row's most frequent access.)
    @exclusivity(unchecked) package internal(set) var isModified = false

    package init(root: PageRef, space: TransactionSpace) {
        self.store = space.store
        self.space = space
        self.root = .stored(root)
    }

    deinit { earlyEncoding?.cancel() }

    package var rootChild: Child { root }

    @inline(__always)
    package func node(_ child: Child) throws -> Node {
        switch child {
        case .stored(let ref): return ref.isNull ? .leaf(Leaf()) : try store.node(ref)
        case .dirtyLeaf(let index): return .leaf(leaves[index])
        case .dirtyBranch(let index): return .branch(branches[index])
        }
    }

    /// Returns a dirty copy of `child`, freeing the stored page it replaces.
    func makeDirty(_ child: Child) throws -> Child {
        guard case .stored(let ref) = child else { return child }
        isModified = true
        if ref.isNull {
            leaves.append(Leaf())
            return .dirtyLeaf(leaves.count - 1)
        }
        let node = try store.node(ref)
        space.free(ref)
        switch node {
        case .leaf(let leaf):
            leaves.append(leaf)
            return .dirtyLeaf(leaves.count - 1)
        case .branch(let branch):
            branches.append(branch)
            return .dirtyBranch(branches.count - 1)
        }
    }

    // MARK: Put

    /// Stores `value` under `key`, replacing any value there.
    package func put(_ key: UInt64, _ value: UnsafeRawBufferPointer) throws {
        try spillIfNeeded()
        spine = nil
        isModified = true
        try withStoredForm(value) { (stored, overflow) in
            let result = try insert(into: root, key: key, value: stored, overflow: overflow)
            root = result.child
            if let (separator, right) = result.split {
                branches.append(Branch(keys: [separator], children: [root, right]))
                root = .dirtyBranch(branches.count - 1)
            }
        }
    }

    package func put(_ key: UInt64, _ value: [UInt8]) throws {
        try value.withUnsafeBytes { (buffer) in try put(key, buffer) }
    }

    /// Calls `body` with the bytes a leaf stores for `value`: the value itself, or the descriptor
    /// of the overflow page it was just written to.
    func withStoredForm(
        _ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Bool) throws -> Void
    ) throws {
        guard value.count > TreeLayout.overflowThreshold else {
            try body(value, false)
            return
        }
        let page = try space.writeOverflow(value)
        let descriptor = OverflowDescriptor(page: page, valueLength: UInt32(value.count)).encoded()
        try descriptor.withUnsafeBytes { (buffer) in try body(buffer, true) }
    }

    /// Frees the overflow page behind value `index` of `leaf`, if it has one.
    func freeOverflow(of leaf: Leaf, at index: Int) throws {
        guard leaf.isOverflow(at: index) else { return }
        let range = leaf.valueRange(at: index)
        let descriptor = try leaf.bytes.withUnsafeBytes { (buffer) in
            try OverflowDescriptor.decode(UnsafeRawBufferPointer(rebasing: buffer[range]), origin: 0)
        }
        space.free(descriptor.page)
    }

    private func insert(
        into child: Child, key: UInt64, value: UnsafeRawBufferPointer, overflow: Bool
    ) throws -> (child: Child, split: (UInt64, Child)?) {
        let dirty = try makeDirty(child)
        switch dirty {
        case .dirtyLeaf(let index):
            let (position, found) = leaves[index].search(key)
            if found {
                try freeOverflow(of: leaves[index], at: position)
                leaves[index].replace(at: position, value: value, overflow: overflow)
            } else {
                leaves[index].insert(key: key, value: value, overflow: overflow, at: position)
            }
            guard leaves[index].encodedSize > TreeLayout.maxLeafBytes, leaves[index].count > 1 else {
                return (dirty, nil)
            }
            // An insert at the right end splits off just the new entry, so increasing keys fill
            // leaves completely instead of leaving them half empty.
            let atEnd = !found && position == leaves[index].count - 1
            let cut = atEnd ? position : leaves[index].balancedSplitIndex()
            let right = leaves[index].split(at: cut)
            leaves.append(right)
            return (dirty, (right.keys[0], .dirtyLeaf(leaves.count - 1)))

        case .dirtyBranch(let index):
            let position = branches[index].childIndex(for: key)
            let result = try insert(into: branches[index].children[position], key: key, value: value, overflow: overflow)
            branches[index].children[position] = result.child
            guard let (separator, right) = result.split else { return (dirty, nil) }
            branches[index].keys.insert(separator, at: position)
            branches[index].children.insert(right, at: position + 1)
            let count = branches[index].children.count
            guard count > TreeLayout.maxBranchChildren else { return (dirty, nil) }
            let cut = position + 1 == count - 1 ? count - 1 : count / 2
            return (dirty, splitBranch(index, at: cut))

        case .stored:
            stopProgram("makeDirty returned a stored child")
        }
    }

    /// Keeps children `[0, cut)` of branch `index` and moves the rest to a new branch.
    func splitBranch(_ index: Int, at cut: Int) -> (UInt64, Child) {
        let promoted = branches[index].keys[cut - 1]
        let right = Branch(keys: Array(branches[index].keys[cut...]), children: Array(branches[index].children[cut...]))
        branches[index].keys.removeSubrange((cut - 1)...)
        branches[index].children.removeSubrange(cut...)
        branches.append(right)
        return (promoted, .dirtyBranch(branches.count - 1))
    }

    // MARK: Flush

    /// Encodes every dirty leaf ahead of `flush()` and returns the exact space (bytes, page
    /// count) the flush will take, so a commit can set aside one extent for all its pages.
    func prepareFlush() -> (bytes: UInt64, pages: Int) {
        encodedLeaves.removeAll(keepingCapacity: true)
        writtenLeaves.removeAll()
        let early = earlyEncoding?.finish() ?? [:]
        earlyEncoding = nil
        if case .dirtyLeaf(let index) = root, leaves[index].count == 0 { return (0, 0) }
        var dirty: [Int] = []
        collectDirtyLeaves(root, into: &dirty)
        if !early.isEmpty {
            dirty.removeAll { index in
                guard let result = early[index], result.leaf.sharesStorage(with: leaves[index]) else { return false }
                if let ref = result.writtenAt {
                    // Written ahead: taken as it is, unless a write ahead failed.
                    guard space.keepWrittenAhead(ref) else { return false }
                    writtenLeaves[index] = ref
                } else {
                    encodedLeaves[index] = result.page
                }
                leaves[index].incompressibleSize = result.incompressibleSize
                return true
            }
        }
        if dirty.count >= ParallelLeafEncoding.minimumLeaves {
            for (index, encoded) in ParallelLeafEncoding.encode(dirty, of: leaves) {
                encodedLeaves[index] = encoded.page
                leaves[index].incompressibleSize = encoded.incompressibleSize
            }
        }
        return prepare(root)
    }

    private func collectDirtyLeaves(_ child: Child, into indices: inout [Int]) {
        switch child {
        case .stored: break
        case .dirtyLeaf(let index): indices.append(index)
        case .dirtyBranch(let index): for grandchild in branches[index].children { collectDirtyLeaves(grandchild, into: &indices) }
        }
    }

    private func prepare(_ child: Child) -> (bytes: UInt64, pages: Int) {
        switch child {
        case .stored:
            return (0, 0)
        case .dirtyLeaf(let index):
            // Written already (no space to set aside), or encoded already when the leaves
            // were many (see `ParallelLeafEncoding`).
            if writtenLeaves[index] != nil { return (0, 1) }
            if let stored = encodedLeaves[index] { return (FreeSpace.rounded(UInt64(space.sealedSize(stored))), 1) }
            let stored = LeafCompression.page(for: &leaves[index], atVersion: space.version)
            encodedLeaves[index] = stored
            return (FreeSpace.rounded(UInt64(space.sealedSize(stored))), 1)
        case .dirtyBranch(let index):
            var total = (bytes: FreeSpace.rounded(UInt64(space.pageOverhead + NodeCodec.encodedSize(of: branches[index]))), pages: 1)
            for grandchild in branches[index].children {
                let part = prepare(grandchild)
                total = (total.bytes + part.bytes, total.pages + part.pages)
            }
            return total
        }
    }

    /// Writes every dirty node and returns the new root (null for an empty tree).
    func flush() throws -> PageRef {
        let ref: PageRef
        if case .dirtyLeaf(let index) = root, leaves[index].count == 0 {
            ref = .null
        } else {
            ref = try flush(root)
        }
        root = .stored(ref)
        leaves.removeAll()
        leavesAtLastSpill = 0
        branches.removeAll()
        encodedLeaves.removeAll()
        writtenLeaves.removeAll()
        spine = nil
        return ref
    }

    private func flush(_ child: Child) throws -> PageRef {
        switch child {
        case .stored(let ref):
            return ref
        case .dirtyLeaf(let index):
            if let ref = writtenLeaves.removeValue(forKey: index) {
                space.recordWrittenAhead(ref)
                store.cache.insert(.leaf(leaves[index]), for: ref, cost: leaves[index].encodedSize + 64)
                return ref
            }
            // Taken out of `encodedLeaves`, so that sealing it (which writes its checksum in)
            // changes the only reference instead of copying the page.
            var stored: [UInt8]
            if let encoded = encodedLeaves.removeValue(forKey: index) {
                stored = encoded
            } else {
                stored = LeafCompression.page(for: &leaves[index], atVersion: space.version)
            }
            let ref = try space.writeStored(&stored)
            store.cache.insert(.leaf(leaves[index]), for: ref, cost: leaves[index].encodedSize + 64)
            return ref
        case .dirtyBranch(let index):
            for position in branches[index].children.indices {
                let ref = try flush(branches[index].children[position])
                branches[index].children[position] = .stored(ref)
            }
            // Branches are stored raw: they are mostly child checksums, which do not compress,
            // and a raw page's size is known before its children's places are.
            var stored = PageCodec.encodeUncompressed(kind: .branch, maximum: NodeCodec.encodedSize(of: branches[index]) + 10) {
                NodeCodec.encode(branches[index], into: &$0)
            }
            let ref = try space.writeStored(&stored)
            store.cache.insert(.branch(branches[index]), for: ref, cost: stored.count - PageCodec.headerSize + 64)
            return ref
        }
    }

    /// Frees every page of the tree (used when a table or index is dropped or rebuilt).
    func freeAll() throws {
        try freeSubtree(root)
        root = .stored(.null)
        leaves.removeAll()
        leavesAtLastSpill = 0
        branches.removeAll()
        spine = nil
        earlyEncoding?.cancel()
        earlyEncoding = nil
        isModified = true
    }

    private func freeSubtree(_ child: Child) throws {
        let current = try node(child)
        if case .stored(let ref) = child { space.free(ref) }
        switch current {
        case .leaf(let leaf):
            for index in 0..<leaf.count { try freeOverflow(of: leaf, at: index) }
        case .branch(let branch):
            for grandchild in branch.children { try freeSubtree(grandchild) }
        }
    }
}
