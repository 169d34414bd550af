
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
        /// Held until `release`, never evicted: a node that exists only in memory (see
        /// `PageStore.holdInMemory`).
        var isHeld = false
    }

    private struct State {
        /// The objects attached to nodes, with their own CLOCK (see `AttachmentTable`).
        let attachments = AttachmentTable()
        var slots: [Slot] = []
        /// The slot of each cached node, what lookups read of it, and its reference bit, by
        /// offset (see `NodeSummary`).
        let summaries = OffsetTable()
        /// A sample of the keys of each cached leaf that `usesFences` (see `NodeSummary.fenceBlock`).
        let fences = LeafFences()
        var freeSlots: [Int] = []
        var hand = 0
        var usedBytes = 0
        /// Bytes of held nodes, which eviction cannot free and does not count.
        var heldBytes = 0
        var hits = 0
        var misses = 0
        /// Lookups a reader's directory answered without a descent (see `LeafDirectory`).
        var directoryReads = 0
        /// Counts the nodes that left the cache, evicted, replaced or released: a pointer into
        /// a node's arrays taken while it was cached stays valid for as long as this is
        /// unchanged (what lets a `LeafDirectory` read through its hints).
        var generation: UInt64 = 0
    }

    /// The most decoded bytes the cache keeps.
    let capacityBytes: Int
    /// Behind a `ShortLocked`: every read of a page takes it, and holds it only for a descent,
    /// a copy or a bounded step of eviction.
    private let state = ShortLocked(State())

    /// The default size, also given to SQLite as its `cache_size` in realm-bench: 64 MiB.
    package static let defaultCapacityBytes = 64 << 20

    package init(capacityBytes: Int = PageCache.defaultCapacityBytes) {
        self.capacityBytes = capacityBytes
    }

    package func node(for ref: PageRef) -> Node? {
        state.withLock { state in
            guard let summary = state.summaries.summary(for: ref.offset), summary.pointee.describes(ref) else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            summary.pointee.markReferenced()
            return state.slots[Int(summary.pointee.slot)].node
        }
    }

    /// The object attached to the node at `ref` under `tag` (see `attach`), if the cache
    /// still keeps it.
    package func attachment(to ref: PageRef, tag: Int) -> (any AnyObject & Sendable)? {
        state.withLock { state in
            state.attachments.use(AttachmentTable.Key(offset: ref.offset, checksum: ref.checksum, tag: tag))
        }
    }

    /// Calls `found` with each object the cache keeps attached to the node at `ref` under one
    /// of `tags`, and the tag's index in `tags`: the columns of a leaf a scan reads, under one
    /// lock (see `LeafReadAhead`). `found` runs under the cache's lock, so it must not call
    /// the cache.
    package func attachments(to ref: PageRef, tags: [Int], _ found: (Int, any AnyObject & Sendable) -> Void) {
        state.withLock { state in
            for (index, tag) in tags.enumerated() {
                if let object = state.attachments.use(AttachmentTable.Key(offset: ref.offset, checksum: ref.checksum, tag: tag)) {
                    found(index, object)
                }
            }
        }
    }

    /// Keeps `object`, derived from the node at `ref` (a column of a leaf's rows, decoded),
    /// under `tag`: pages never change, so it stays right for as long as it is kept. It is
    /// kept apart from the node, so a reader that needs only it does not need the node read
    /// or kept, and the two are evicted each as it goes unused; `cost` counts against the
    /// cache's capacity as the nodes' bytes do.
    package func attach(_ object: any AnyObject & Sendable, to ref: PageRef, tag: Int, cost: Int) {
        state.withLock { state in
            let key = AttachmentTable.Key(offset: ref.offset, checksum: ref.checksum, tag: tag)
            guard !state.attachments.contains(key) else { return }
            state.attachments.insert(object, cost: cost, under: key)
            state.usedBytes += cost
            evict(&state)
        }
    }

    /// Where a descent through the cache for one key ended (see `locate(_:from:copyingInto:noting:)`).
    package enum Descent {
        /// The leaf holding the key's place had it, and its value is the first this many bytes
        /// of the buffer given.
        case copied(Int)
        /// The leaf holding the key's place had it: a value longer than the buffer given, or
        /// one stored in overflow pages.
        case found(StoredValue)
        /// The leaf holding the key's place does not have it.
        case absent
        /// The node at this reference, on the key's path, is not cached.
        case uncached(PageRef)
    }

    /// Follows `key` from the node at `start` down to its leaf, through cached nodes, under one
    /// lock, reading each node's summary and the elements it compares (see `NodeSummary`), and
    /// copies the value into `buffer` if it fits. Copying a node out cost a reference count on
    /// each of its arrays, each an atomic operation on a line the lookup otherwise did not read.
    /// A `directory` given learns the leaf reached, and answers without a descent where its
    /// hint for `key` may be read through (see `LeafDirectory`).
    func locate(
        _ key: UInt64, from start: PageRef, copyingInto buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory? = nil
    ) -> Descent {
        state.withLock { state in
            if let directory {
                directory.synchronize(cacheGeneration: state.generation)
                if let value = directory.value(for: key), !value.isOverflow, value.range.count <= buffer.count {
                    state.directoryReads += 1
                    return PageCache.copy(value.range, of: value.bytes, into: buffer)
                }
            }
            var ref = start
            // The keys the node at `ref` can hold, from its parent's separators: a search starts
            // from them instead of reading the node's last key.
            var span = KeySpan()
            while true {
                guard let summary = state.summaries.summary(for: ref.offset), summary.pointee.describes(ref) else {
                    state.misses += 1
                    return .uncached(ref)
                }
                state.hits += 1
                summary.pointee.markReferenced()
                if !summary.pointee.isLeaf {
                    (ref, span) = summary.pointee.child(for: key, within: span) { state.summaries.prefetch($0) }
                    continue
                }
                directory?.record(summary.pointee, for: key)
                let fences = summary.pointee.usesFences ? state.fences.block(summary.pointee.fenceBlock) : nil
                guard let (range, isOverflow) = summary.pointee.value(for: key, within: span, fences: fences) else { return .absent }
                if !isOverflow && range.count <= buffer.count {
                    return PageCache.copy(range, of: summary.pointee.bytes, into: buffer)
                }
                guard case .leaf(let leaf)? = state.slots[Int(summary.pointee.slot)].node else {
                    stopProgram("a page cache slot summarised as a leaf holds no leaf")
                }
                return .found(StoredValue(bytes: leaf.bytes, range: range, isOverflow: isOverflow))
            }
        }
    }

    /// Copies the value at `range` of a leaf's `bytes` into `buffer`, which has room for it.
    @inline(__always)
    private static func copy(_ range: Range<Int>, of bytes: UnsafeRawPointer?, into buffer: UnsafeMutableRawBufferPointer) -> Descent {
        if !range.isEmpty {
            buffer.baseAddress.unsafelyUnwrapped.copyMemory(from: bytes.unsafelyUnwrapped + range.lowerBound, byteCount: range.count)
        }
        return .copied(range.count)
    }

    package func insert(_ node: Node, for ref: PageRef, cost: Int) {
        state.withLock { state in
            if let old = state.summaries.summary(for: ref.offset) {
                let index = Int(old.pointee.slot)
                require(!state.slots[index].isHeld, "a node held in memory was replaced; release it first")
                PageCache.forget(old.pointee, in: &state)
                state.usedBytes -= state.slots[index].cost
                state.generation &+= 1
                state.slots[index] = Slot(ref: ref, node: node, cost: cost)
                PageCache.summarise(NodeSummary(node, at: ref, slot: index, referenced: true), in: &state)
                state.usedBytes += cost
            } else {
                PageCache.place(Slot(ref: ref, node: node, cost: cost), in: &state)
                state.usedBytes += cost
            }
            evict(&state)
        }
    }

    /// Keeps each node under its reference until `release(_:)`, whatever the cache's capacity.
    /// Each node is moved out of `nodes` into its slot, not copied: a copy counted a reference
    /// to each of the node's arrays.
    package func hold(_ nodes: consuming [(ref: PageRef, node: Node)], cost: (Node) -> Int) {
        var nodes = nodes
        state.withLock { state in
            while let (ref, node) = nodes.popLast() {
                require(state.summaries.slot(for: ref.offset) == nil, "\(ref) is already cached")
                let cost = cost(node)
                PageCache.place(Slot(ref: ref, node: node, cost: cost, isHeld: true), in: &state)
                state.heldBytes += cost
            }
        }
    }

    /// Puts `slot`, which holds a node, into a free slot or a new one, and its summary into the
    /// offset table.
    private static func place(_ slot: consuming Slot, in state: inout State) {
        let index = state.freeSlots.popLast() ?? state.slots.count
        let summary = NodeSummary(slot.node.unsafelyUnwrapped, at: slot.ref, slot: index, referenced: false)
        if index < state.slots.count {
            state.slots[index] = slot
        } else {
            state.slots.append(slot)
        }
        summarise(summary, in: &state)
    }

    /// Puts `summary`, of the node now in its slot, into the offset table, and writes the
    /// node's fences if it uses them (from the keys the summary points at: taking them from
    /// the node would count a reference to its arrays).
    private static func summarise(_ summary: NodeSummary, in state: inout State) {
        var summary = summary
        if summary.usesFences {
            summary.fenceBlock = state.fences.take(UnsafeBufferPointer(start: summary.keys, count: Int(summary.keyCount)))
        }
        state.summaries.set(summary)
    }

    /// Gives back what the node `summary` describes took besides its slot, as it leaves the
    /// cache: its fences, if it uses them.
    private static func forget(_ summary: NodeSummary, in state: inout State) {
        if summary.usesFences { state.fences.giveBack(summary.fenceBlock) }
    }

    /// Fence blocks held by cached leaves, for tests.
    var fenceBlocksInUse: Int { state.withLock { $0.fences.blocksInUse } }

    /// Drops a node `hold(_:cost:)` kept.
    package func release(_ ref: PageRef) {
        state.withLock { state in
            guard let summary = state.summaries.summary(for: ref.offset) else { return }
            let index = Int(summary.pointee.slot)
            guard state.slots[index].isHeld, state.slots[index].ref == ref else { return }
            PageCache.forget(summary.pointee, in: &state)
            state.heldBytes -= state.slots[index].cost
            state.generation &+= 1
            state.summaries.remove(ref.offset)
            state.slots[index] = Slot(ref: ref, node: nil, cost: 0)
            state.freeSlots.append(index)
        }
    }

    /// Bytes of nodes held in memory (see `hold`).
    var heldBytes: Int { state.withLock { $0.heldBytes } }

    /// Counters for tests and benchmarks: (hits, misses, bytes held).
    var statistics: (hits: Int, misses: Int, usedBytes: Int) {
        state.withLock { ($0.hits, $0.misses, $0.usedBytes) }
    }

    /// Lookups a reader's directory answered without a descent, for tests.
    var directoryReads: Int { state.withLock { $0.directoryReads } }

    /// Evicts until the cache is within its capacity: nodes and attached objects each by a
    /// CLOCK of their own, a step of one and then of the other, so that what is used stays,
    /// whichever it is (a sum over a column uses the column of every leaf and not the leaves).
    private func evict(_ state: inout State) {
        var budget = (state.slots.count + state.attachments.capacity) * 2 + 2
        var nodeTurn = false
        while state.usedBytes > capacityBytes && budget > 0 {
            budget -= 1
            nodeTurn.toggle()
            if nodeTurn || state.attachments.count == 0 {
                stepNodeClock(&state)
            } else {
                stepAttachmentClock(&state)
            }
        }
    }

    private func stepNodeClock(_ state: inout State) {
        guard !state.slots.isEmpty else { return }
        if state.hand >= state.slots.count { state.hand = 0 }
        let index = state.hand
        state.hand += 1
        guard state.slots[index].node != nil, !state.slots[index].isHeld,
              let summary = state.summaries.summary(for: state.slots[index].ref.offset) else { return }
        if summary.pointee.referenced {
            summary.pointee.referenced = false
            return
        }
        PageCache.forget(summary.pointee, in: &state)
        state.usedBytes -= state.slots[index].cost
        state.generation &+= 1
        state.summaries.remove(state.slots[index].ref.offset)
        state.slots[index].node = nil
        state.freeSlots.append(index)
    }

    private func stepAttachmentClock(_ state: inout State) {
        if let freed = state.attachments.stepClock() { state.usedBytes -= freed }
    }
}
