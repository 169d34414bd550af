
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
