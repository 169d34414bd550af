/// The dirty right edge of a tree: branch indices from the root down, then the last leaf.
struct Spine {
    var branches: [Int]
    var leaf: Int
    var lastKey: UInt64?
}

extension MutableTree {
    /// Appends `key`, which should be greater than every key in the tree, without searching.
    ///
    /// The right edge stays dirty between calls, so a run of increasing keys costs an array
    /// append per entry and a new leaf every `maxLeafBytes`: no binary search, no copying of
    /// half-full nodes, and every leaf but the last is full. A key that is not greater than the
    /// current maximum falls back to `put`.
    package func append(_ key: UInt64, _ value: UnsafeRawBufferPointer) throws {
        if spine == nil { spine = try buildSpine() }
        if let last = spine!.lastKey, key <= last {
            try put(key, value)
            return
        }
        isModified = true
        try withStoredForm(value) { (stored, overflow) in
            let leafIndex = spine!.leaf
            let entrySize = stored.count + 5
            if leaves[leafIndex].count > 0 && leaves[leafIndex].encodedSize + entrySize > TreeLayout.maxLeafBytes {
                leafFilled(leafIndex)
                // Room for as much as the leaf just filled: the arrays grow once, not a dozen
                // times, each growth copying what the leaf held so far.
                var fresh = Leaf()
                fresh.reserveCapacity(entries: leaves[leafIndex].count, bytes: TreeLayout.maxLeafBytes + stored.count)
                fresh.append(key: key, value: stored, overflow: overflow)
                leaves.append(fresh)
                attachRight(separator: key, child: .dirtyLeaf(leaves.count - 1))
                spine!.leaf = leaves.count - 1
            } else {
                leaves[leafIndex].append(key: key, value: stored, overflow: overflow)
            }
            spine!.lastKey = key
        }
    }

    package func append(_ key: UInt64, _ value: [UInt8]) throws {
        try value.withUnsafeBytes { (buffer) in try append(key, buffer) }
    }

    /// Stores `value` under `key` as `put` does, switching to `append` once keys have been
    /// increasing for a while: an index of increasing values (an integer primary key) then
    /// grows along its right edge like the rows do, and random keys keep using `put`.
    func putOrAppend(_ key: UInt64, _ value: [UInt8]) throws {
        if spine != nil {
            try append(key, value)
            return
        }
        if let previous = lastPutKey, key > previous { increasingPuts += 1 } else { increasingPuts = 0 }
        lastPutKey = key
        if increasingPuts >= 8 {
            try append(key, value)
        } else {
            try put(key, value)
        }
    }

    /// Whether `key` is greater than every key in the tree: known without a search while the
    /// right edge is kept for appending, and found by reading down the right edge once while
    /// the tree is still as stored. So an index of an increasing primary key appends from the
    /// first row a transaction inserts, rather than searching for a bucket and rewriting it.
    /// False when neither applies (the tree changed, but not by appending).
    func isAfterLastKey(_ key: UInt64) throws -> Bool {
        if let spine { return spine.lastKey.map { key > $0 } ?? true }
        guard case .stored(let ref) = root else { return false }
        if lastKeyOfStoredRoot?.root != ref {
            lastKeyOfStoredRoot = (ref, ref.isNull ? nil : try TreeReader(store: store, root: ref).lastKey())
        }
        return lastKeyOfStoredRoot!.key.map { key > $0 } ?? true
    }

    private func buildSpine() throws -> Spine {
        root = try makeDirty(root)
        var path: [Int] = []
        var child = root
        while case .dirtyBranch(let index) = child {
            path.append(index)
            let last = branches[index].children.count - 1
            let dirty = try makeDirty(branches[index].children[last])
            branches[index].children[last] = dirty
            child = dirty
        }
        guard case .dirtyLeaf(let leafIndex) = child else { stopProgram("the right edge ends in a leaf") }
        // The right edge's leaf holds the largest key unless it is empty; read in place, not
        // through `lastKey()`, whose walk copied each node (a count on each of its arrays).
        return Spine(branches: path, leaf: leafIndex, lastKey: try leaves[leafIndex].keys.last ?? lastKey())
    }

    /// Notes that the append left the leaf at `index` full, and once a few have filled in this
    /// transaction, hands it over to be encoded while the appends go on (see `EarlyLeafEncoding`).
    private func leafFilled(_ index: Int) {
        // No later append rewrites a full leaf: packed, not kept whole as a hot one is (see
        // `LeafCompression.isHot`).
        leaves[index].encodedAtVersion = 0
        filledLeaves += 1
        guard filledLeaves >= EarlyLeafEncoding.minimumFilledLeaves else { return }
        if earlyEncoding == nil { earlyEncoding = EarlyLeafEncoding() }
        let writes = filledLeaves >= EarlyLeafEncoding.minimumLeavesWrittenAhead
            ? space.earlyPageWrites(forPageOfAtMost: PageCodec.headerSize + leaves[index].encodedSize) : nil
        earlyEncoding!.submit(leaves[index], at: index, writingTo: writes)
    }

    /// Adds `child` as the new rightmost child of the spine's lowest branch, starting new
    /// branches upward (and a new root) where the spine is full.
    private func attachRight(separator: UInt64, child: Child) {
        var pending = child
        var level = spine!.branches.count - 1
        while level >= 0 {
            let index = spine!.branches[level]
            if branches[index].children.count < TreeLayout.maxBranchChildren {
                branches[index].keys.append(separator)
                branches[index].children.append(pending)
                return
            }
            branches.append(Branch(keys: [], children: [pending]))
            spine!.branches[level] = branches.count - 1
            pending = .dirtyBranch(branches.count - 1)
            level -= 1
        }
        branches.append(Branch(keys: [separator], children: [root, pending]))
        root = .dirtyBranch(branches.count - 1)
        spine!.branches.insert(branches.count - 1, at: 0)
    }
}
