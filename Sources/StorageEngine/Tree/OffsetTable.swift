import CPrefetch

/// A hash map from page offsets to the summaries of the cached nodes at them, for `PageCache`:
/// open addressing with linear probing over whole cache lines, each entry a `NodeSummary`
/// holding its offset, its slot and what a lookup reads of the node.
///
/// A lookup in the cache is most of what descending a tree costs besides the search in each
/// node, and a `Dictionary` spends it on SipHash and on three places in memory (its occupancy
/// bits, its keys, its values), each a likely cache miss for a page not read lately. Here a
/// multiplicative hash picks an entry, and the entry found is the node's summary: one line for
/// finding the node and reading what the lookup needs of it, where an entry of offset and slot
/// number led to a summary a line away. Deleting shifts the entries after it back, so no
/// tombstones accumulate. The table stays at most half full, so most lookups read one line.
///
/// A class, owning its entries' memory; `@unchecked Sendable` because the cache reaches it only
/// under its lock.
final class OffsetTable: @unchecked Sendable {
    private var entries: UnsafeMutablePointer<NodeSummary>
    private var capacity: Int
    private var shift: UInt64
    private(set) var count = 0

    init() {
        capacity = 16
        shift = 64 - 4
        entries = Self.allocate(capacity: capacity)
    }

    deinit { entries.deallocate() }

    private static func allocate(capacity: Int) -> UnsafeMutablePointer<NodeSummary> {
        let stride = MemoryLayout<NodeSummary>.stride
        require(stride == 64, "a node summary is meant to fill one 64-byte line, not \(stride) bytes")
        let raw = UnsafeMutableRawPointer.allocate(byteCount: capacity * stride, alignment: 64)
        return raw.initializeMemory(as: NodeSummary.self, repeating: NodeSummary(), count: capacity)
    }

    private var mask: Int { capacity - 1 }

    @inline(__always)
    private func home(_ offset: UInt64) -> Int {
        Int(truncatingIfNeeded: (offset &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The summary of the node at `offset`, if there is one; valid until the table next changes.
    @inline(__always)
    func summary(for offset: UInt64) -> UnsafeMutablePointer<NodeSummary>? {
        var index = home(offset)
        while true {
            let entry = entries + index
            if entry.pointee.offset == offset { return entry }
            if entry.pointee.offset == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// Starts loading the line where the summary of the node at `offset` would be (see
    /// `KeySearch.firstIndex`'s `onGuess`).
    @inline(__always)
    func prefetch(_ offset: UInt64) {
        asyncrealm_prefetch(entries + home(offset))
    }

    /// The slot of the node at `offset`, if there is one.
    func slot(for offset: UInt64) -> Int? {
        summary(for: offset).map { Int($0.pointee.slot) }
    }

    /// Maps `summary.offset`, which must be nonzero, to `summary`, replacing what it mapped to.
    func set(_ summary: NodeSummary) {
        require(summary.offset != 0, "offset zero marks an empty entry")
        if (count + 1) * 2 > capacity { grow() }
        var index = home(summary.offset)
        while entries[index].offset != 0 && entries[index].offset != summary.offset { index = (index + 1) & mask }
        if entries[index].offset == 0 { count += 1 }
        entries[index] = summary
    }

    /// Removes the mapping of `offset`, if there is one.
    func remove(_ offset: UInt64) {
        var hole = home(offset)
        while entries[hole].offset != offset {
            if entries[hole].offset == 0 { return }
            hole = (hole + 1) & mask
        }
        count -= 1
        let entries = entries
        hole = LinearProbing.closeHole(at: hole, mask: mask) { index in
            entries[index].offset == 0 ? nil : home(entries[index].offset)
        } move: { from, to in
            entries[to] = entries[from]
        }
        entries[hole] = NodeSummary()
    }

    private func grow() {
        let (old, oldCapacity) = (entries, capacity)
        capacity *= 2
        shift -= 1
        entries = Self.allocate(capacity: capacity)
        count = 0
        for index in 0..<oldCapacity where old[index].offset != 0 { set(old[index]) }
        old.deallocate()
    }
}
