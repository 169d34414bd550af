extension MutableTree {
    /// Removes `key` and its value. Returns whether the key was there.
    @discardableResult
    package func delete(_ key: UInt64) throws -> Bool {
        guard try contains(key) else { return false }
        try spillIfNeeded()
        spine = nil
        isModified = true
        root = try remove(key, from: root)
        // A root branch left with one child is replaced by that child, so the tree shrinks back.
        while case .dirtyBranch(let index) = root, branches[index].children.count == 1 {
            root = try makeDirty(branches[index].children[0])
        }
        return true
    }

    private func remove(_ key: UInt64, from child: Child) throws -> Child {
        let dirty = try makeDirty(child)
        switch dirty {
        case .dirtyLeaf(let index):
            let (position, found) = leaves[index].search(key)
            require(found, "MutableTree.remove: key \(key) vanished between lookup and removal")
            try freeOverflow(of: leaves[index], at: position)
            leaves[index].remove(at: position)
        case .dirtyBranch(let index):
            let position = branches[index].childIndex(for: key)
            branches[index].children[position] = try remove(key, from: branches[index].children[position])
            try rebalance(branch: index, child: position)
        case .stored:
            stopProgram("makeDirty returned a stored child")
        }
        return dirty
    }

    /// Merges child `position` of branch `index` with a neighbour when it has become small and
    /// the two fit in one node; drops it when it is an empty leaf with a sibling.
    private func rebalance(branch index: Int, child position: Int) throws {
        let children = branches[index].children
        guard children.count > 1 else { return }
        switch children[position] {
        case .dirtyLeaf(let leafIndex):
            if leaves[leafIndex].count == 0 {
                branches[index].children.remove(at: position)
                branches[index].keys.remove(at: position == 0 ? 0 : position - 1)
                return
            }
            guard leaves[leafIndex].encodedSize < TreeLayout.minLeafBytes else { return }
        case .dirtyBranch(let branchIndex):
            guard branches[branchIndex].children.count < TreeLayout.minBranchChildren else { return }
        case .stored:
            return
        }
        // Prefer the left neighbour: deletes in key order leave small nodes behind them.
        for left in [position - 1, position] where left >= 0 && left + 1 < children.count {
            if try merge(branch: index, at: left) { return }
        }
    }

    /// Merges children `left` and `left + 1` of branch `index` if they fit in one node.
    private func merge(branch index: Int, at left: Int) throws -> Bool {
        // Check the sizes on the nodes as they are, so a neighbour is copied only to be merged.
        switch (try node(branches[index].children[left]), try node(branches[index].children[left + 1])) {
        case (.leaf(let a), .leaf(let b)):
            guard a.encodedSize + b.encodedSize <= TreeLayout.maxLeafBytes else { return false }
        case (.branch(let a), .branch(let b)):
            guard a.children.count + b.children.count <= TreeLayout.maxBranchChildren else { return false }
        default:
            stopProgram("siblings of different kinds: the tree is not balanced")
        }
        let leftChild = try makeDirty(branches[index].children[left])
        let rightChild = try makeDirty(branches[index].children[left + 1])
        let separator = branches[index].keys[left]
        switch (leftChild, rightChild) {
        case (.dirtyLeaf(let a), .dirtyLeaf(let b)):
            leaves[a].absorb(leaves[b])
            leaves[b] = Leaf()
        case (.dirtyBranch(let a), .dirtyBranch(let b)):
            branches[a].keys.append(separator)
            branches[a].keys.append(contentsOf: branches[b].keys)
            branches[a].children.append(contentsOf: branches[b].children)
            branches[b] = Branch()
        default:
            stopProgram("makeDirty changed a node's kind")
        }
        branches[index].children[left] = leftChild
        branches[index].children.remove(at: left + 1)
        branches[index].keys.remove(at: left)
        return true
    }
}
