
/// A bounded cache of decoded tree pages shared by every snapshot of a file (invariant 4).
///
/// Eviction is CLOCK: each entry has a reference bit set on every hit, and the hand clears bits
/// until it finds an entry not used since its last pass. Pages are immutable, so an entry never
/// needs invalidating; it is keyed by offset and checked against the reference's checksum, so a
/// page written later into reused space (by this process or another) replaces, never aliases,
/// the old one.
package final class PageCache: Sendable {
    private struct Slot {
        var ref: PageRef
        var node: Node?
        var cost: Int
        var referenced: Bool
    }

    private struct State {
        var slots: [Slot] = []
        var slotByOffset = OffsetTable()
        var freeSlots: [Int] = []
        var hand = 0
        var usedBytes = 0
        var hits = 0
        var misses = 0
    }

    /// The most decoded bytes the cache keeps.
    package let capacityBytes: Int
    private let state = Locked(State())

    /// The default size, also given to SQLite as its `cache_size` in realm-bench: 64 MiB.
    package static let defaultCapacityBytes = 64 << 20

    package init(capacityBytes: Int = PageCache.defaultCapacityBytes) {
        self.capacityBytes = capacityBytes
    }

    package func node(for ref: PageRef) -> Node? {
        state.withLock { state in
            guard let index = state.slotByOffset.slot(for: ref.offset), state.slots[index].ref == ref else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            state.slots[index].referenced = true
            return state.slots[index].node
        }
    }

    /// Where a descent through the cache for one key ended (see `locate(_:from:)`).
    package enum Descent {
        /// The leaf holding the key's place had it.
        case found(StoredValue)
        /// The leaf holding the key's place does not have it.
        case absent
        /// The node at this reference, on the key's path, is not cached.
        case uncached(PageRef)
    }

    /// Follows `key` from the node at `start` down to its leaf, through cached nodes, under one
    /// lock, reading each node in place. Copying a node out costs a reference count on each of
    /// its arrays (two for a branch, three for a leaf), and each of those an atomic operation
    /// on a cache line a lookup would not otherwise touch; a lookup here counts one, on the
    /// leaf's bytes it hands out.
    package func locate(_ key: UInt64, from start: PageRef) -> Descent {
        state.withLock { state in
            var ref = start
            // The keys the node at `ref` can hold, from its parent's separators: a leaf's search
            // starts from them instead of reading its last key.
            var span = KeySpan()
            var (hits, misses) = (0, 0)
            defer { state.hits += hits; state.misses += misses }
            // Through a pointer: reading a slot out of the array copied it, node and all.
            return state.slots.withUnsafeMutableBufferPointer { [slotByOffset = state.slotByOffset] slots in
                while true {
                    guard let index = slotByOffset.slot(for: ref.offset), slots[index].ref == ref else {
                        misses += 1
                        return .uncached(ref)
                    }
                    hits += 1
                    let slot = slots.baseAddress.unsafelyUnwrapped + index
                    slot.pointee.referenced = true
                    switch slot.pointee.node {
                    case .branch(let branch)?:
                        (ref, span) = branch.storedChild(for: key, within: span)
                    case .leaf(let leaf)?:
                        return leaf.storedValue(for: key, within: span).map(Descent.found) ?? .absent
                    case nil:
                        preconditionFailure("a page cache slot mapped from an offset holds no node")
                    }
                }
            }
        }
    }

    package func insert(_ node: Node, for ref: PageRef, cost: Int) {
        state.withLock { state in
            if let index = state.slotByOffset.slot(for: ref.offset) {
                state.usedBytes -= state.slots[index].cost
                state.slots[index] = Slot(ref: ref, node: node, cost: cost, referenced: true)
                state.usedBytes += cost
            } else {
                let slot = Slot(ref: ref, node: node, cost: cost, referenced: false)
                let index: Int
                if let free = state.freeSlots.popLast() {
                    state.slots[free] = slot
                    index = free
                } else {
                    state.slots.append(slot)
                    index = state.slots.count - 1
                }
                state.slotByOffset.set(index, for: ref.offset)
                state.usedBytes += cost
            }
            evict(&state)
        }
    }

    /// Counters for tests and benchmarks: (hits, misses, bytes held).
    package var statistics: (hits: Int, misses: Int, usedBytes: Int) {
        state.withLock { ($0.hits, $0.misses, $0.usedBytes) }
    }

    private func evict(_ state: inout State) {
        var budget = state.slots.count * 2 + 1
        while state.usedBytes > capacityBytes && budget > 0 {
            budget -= 1
            if state.hand >= state.slots.count { state.hand = 0 }
            let index = state.hand
            state.hand += 1
            guard state.slots[index].node != nil else { continue }
            if state.slots[index].referenced {
                state.slots[index].referenced = false
                continue
            }
            state.usedBytes -= state.slots[index].cost
            state.slotByOffset.remove(state.slots[index].ref.offset)
            state.slots[index].node = nil
            state.freeSlots.append(index)
        }
    }
}
