/// A hash map from page offsets to slot numbers, for `PageCache`: open addressing with linear
/// probing, each entry's offset and slot side by side.
///
/// A lookup in the cache is most of what descending a tree costs besides the search in each
/// node, and a `Dictionary` spends it on SipHash and on three places in memory (its occupancy
/// bits, its keys, its values), each a likely cache miss for a page not read lately. Here a
/// multiplicative hash picks an entry, and the probe reads entries next to it, usually in the
/// same cache line. Deleting shifts the entries after it back, so no tombstones accumulate.
struct OffsetTable {
    private struct Entry {
        /// Zero marks an empty entry: no page lives at offset zero (the file header does).
        var offset: UInt64
        var slot: Int
    }

    private var entries: [Entry]
    private var shift: UInt64
    private(set) var count = 0

    init() {
        entries = Array(repeating: Entry(offset: 0, slot: 0), count: 16)
        shift = 64 - 4
    }

    private var mask: Int { entries.count - 1 }

    @inline(__always)
    private func home(_ offset: UInt64) -> Int {
        Int(truncatingIfNeeded: (offset &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot of the page at `offset`, if there is one.
    @inline(__always)
    func slot(for offset: UInt64) -> Int? {
        entries.withUnsafeBufferPointer { entries in
            var index = home(offset)
            while true {
                let entry = entries[index]
                if entry.offset == offset { return entry.slot }
                if entry.offset == 0 { return nil }
                index = (index + 1) & (entries.count - 1)
            }
        }
    }

    /// Maps `offset`, which must be nonzero, to `slot`, replacing what it mapped to.
    mutating func set(_ slot: Int, for offset: UInt64) {
        precondition(offset != 0, "offset zero marks an empty entry")
        if (count + 1) * 2 > entries.count { grow() }
        var index = home(offset)
        while entries[index].offset != 0 && entries[index].offset != offset { index = (index + 1) & mask }
        if entries[index].offset == 0 { count += 1 }
        entries[index] = Entry(offset: offset, slot: slot)
    }

    /// Removes the mapping of `offset`, if there is one.
    mutating func remove(_ offset: UInt64) {
        var hole = home(offset)
        while entries[hole].offset != offset {
            if entries[hole].offset == 0 { return }
            hole = (hole + 1) & mask
        }
        count -= 1
        // Shift back each following entry of the run that may move into the hole: one whose
        // home is not between the hole and where it sits (cyclically).
        var next = hole
        while true {
            next = (next + 1) & mask
            let entry = entries[next]
            if entry.offset == 0 { break }
            let distanceFromHome = (next - home(entry.offset)) & mask
            let distanceFromHole = (next - hole) & mask
            if distanceFromHome >= distanceFromHole {
                entries[hole] = entry
                hole = next
            }
        }
        entries[hole] = Entry(offset: 0, slot: 0)
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(offset: 0, slot: 0), count: old.count * 2)
        shift -= 1
        count = 0
        for entry in old where entry.offset != 0 { set(entry.slot, for: entry.offset) }
    }
}
