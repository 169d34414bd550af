/// Flushing a tree into memory instead of the file, and back: the tree side of commits made
/// durable by the redo log (see `Docs/Internals/RedoLog.md`).
extension MutableTree {
    /// Keeps every dirty node in memory under a synthetic reference (`PageStore.holdInMemory`)
    /// and returns the new root: no encoding, compression, checksum or write. Readers reach the
    /// nodes through the page cache as they would stored ones, and a later transaction makes
    /// them dirty like stored ones (freeing them into `TransactionSpace.freedInMemory`).
    func flushToMemory() -> PageRef {
        let ref: PageRef
        if case .dirtyLeaf(let index) = root, leaves[index].count == 0 {
            ref = .null
        } else {
            // Every dirty node the root reaches is one of these, so there are enough names.
            var names = store.reserveSyntheticRefs(leaves.count + branches.count)
            var held: [(ref: PageRef, node: Node)] = []
            held.reserveCapacity(leaves.count + branches.count)
            ref = flushToMemory(root, names: &names, into: &held)
            // Each reference read in place: a `map(\.ref)` copied each node with it.
            for index in held.indices { space.heldInMemory.append(held[index].ref) }
            // Consumed, so that the cache pops the nodes out of the one array rather than
            // copying it first.
            store.holdInMemory(consume held)
        }
        root = .stored(ref)
        leaves.removeAll()
        leavesAtLastSpill = 0
        branches.removeAll()
        spine = nil
        // Nothing is encoded for memory: leaves handed over early are not needed.
        earlyEncoding?.cancel()
        earlyEncoding = nil
        return ref
    }

    private func flushToMemory(_ child: Child, names: inout SyntheticRefs, into held: inout [(ref: PageRef, node: Node)]) -> PageRef {
        switch child {
        case .stored(let ref):
            return ref
        case .dirtyLeaf(let index):
            // Moved out, not copied: the tree forgets its dirty nodes once flushed, and a copy
            // counted a reference to each of the node's arrays (atomic operations, a few per
            // node and commit).
            var leaf = Leaf()
            swap(&leaf, &leaves[index])
            held.append((names.take(), .leaf(leaf)))
        case .dirtyBranch(let index):
            for position in branches[index].children.indices {
                if case .stored = branches[index].children[position] { continue }
                branches[index].children[position] = .stored(flushToMemory(branches[index].children[position], names: &names, into: &held))
            }
            var branch = Branch()
            swap(&branch, &branches[index])
            held.append((names.take(), .branch(branch)))
        }
        return held[held.count - 1].ref
    }

    /// Makes every node held in memory that the tree reaches dirty, so that the next `flush()`
    /// writes them all to the file: a checkpoint. Subtrees of stored pages are not visited.
    func makeHeldNodesDirty() throws {
        root = try makeHeldNodesDirty(root)
    }

    private func makeHeldNodesDirty(_ child: Child) throws -> Child {
        var current = child
        if case .stored(let ref) = child {
            guard ref.isSynthetic else { return child }
            current = try makeDirty(child)
        }
        // A branch already dirty (the transaction changed a path through it) may still have
        // held children beside that path.
        if case .dirtyBranch(let index) = current {
            for position in branches[index].children.indices {
                let grandchild = try makeHeldNodesDirty(branches[index].children[position])
                branches[index].children[position] = grandchild
            }
        }
        return current
    }
}
