/// A B+tree leaf: sorted keys and their values, decoded.
///
/// Values live back to back in one byte buffer so a decoded page costs three allocations, not one
/// per row. `ends[i]` holds the end offset of value `i` in its low 31 bits; bit 31 marks a value
/// stored in an overflow page, in which case the bytes are an `OverflowDescriptor`.
@usableFromInline
package struct Leaf: Sendable {
    package var keys: [UInt64] = []
    @usableFromInline package var ends: [UInt32] = []
    @usableFromInline package var bytes: [UInt8] = []
    /// The encoded size at which this leaf's page last came out raw because compressing it
    /// saved too little; 0 if it compressed or was not tried. In memory only (see
    /// `LeafCompression`).
    var incompressibleSize: UInt32 = 0
    /// The version whose commit last encoded this leaf into a page on its own (a commit with
    /// many dirty leaves encodes them together, packed, and leaves this as it was), 0 if none
    /// did since the leaf was read or built. In memory only (see `LeafCompression.isHot`).
    var encodedAtVersion: UInt64 = 0

    @usableFromInline static let overflowBit: UInt32 = 1 << 31

    package init() {}

    package init(keys: [UInt64], ends: [UInt32], bytes: [UInt8]) {
        self.keys = keys
        self.ends = ends
        self.bytes = bytes
    }

    package var count: Int { keys.count }

    /// An estimate of the encoded size, used to decide when to split and merge.
    var encodedSize: Int { bytes.count + keys.count * 5 + 8 }

    @inline(__always)
    func valueRange(at index: Int) -> Range<Int> {
        let start = index == 0 ? 0 : Int(ends[index - 1] & ~Leaf.overflowBit)
        return start..<Int(ends[index] & ~Leaf.overflowBit)
    }

    @inline(__always)
    func isOverflow(at index: Int) -> Bool { ends[index] & Leaf.overflowBit != 0 }

    /// Where value `index` is in `bytes`; nil for a value stored in overflow pages (read it by
    /// its key).
    @inlinable @inline(__always)
    package func inlineValueRange(at index: Int) -> Range<Int>? {
        let end = ends[index]
        guard end & Leaf.overflowBit == 0 else { return nil }
        let start = index == 0 ? 0 : Int(ends[index &- 1] & ~Leaf.overflowBit)
        require(start <= Int(end) && Int(end) <= bytes.count, "leaf value ends out of order")
        return start..<Int(end)
    }

    /// The index of the first key not less than `key` (at `start` or after: the keys before it
    /// must be less), and whether it equals `key` (see `KeySearch`).
    @inline(__always)
    package func search(_ key: UInt64, from start: Int = 0) -> (index: Int, found: Bool) {
        keys.withUnsafeBufferPointer { keys in
            let index = KeySearch.firstIndex(notLessThan: key, in: keys, from: start)
            return (index, index < keys.count && keys[index] == key)
        }
    }

    package mutating func insert(key: UInt64, value: UnsafeRawBufferPointer, overflow: Bool, at index: Int) {
        let start = index == 0 ? 0 : Int(ends[index - 1] & ~Leaf.overflowBit)
        bytes.insert(contentsOf: value, at: start)
        let delta = UInt32(value.count)
        for position in index..<ends.count { ends[position] += delta }
        let end = UInt32(start + value.count) | (overflow ? Leaf.overflowBit : 0)
        ends.insert(end, at: index)
        keys.insert(key, at: index)
    }

    /// Makes room for `entries` entries of `bytes` bytes in all before the arrays grow.
    mutating func reserveCapacity(entries: Int, bytes count: Int) {
        keys.reserveCapacity(entries)
        ends.reserveCapacity(entries)
        bytes.reserveCapacity(count)
    }

    package mutating func append(key: UInt64, value: UnsafeRawBufferPointer, overflow: Bool) {
        bytes.append(contentsOf: value)
        keys.append(key)
        ends.append(UInt32(bytes.count) | (overflow ? Leaf.overflowBit : 0))
    }

    package mutating func replace(at index: Int, value: UnsafeRawBufferPointer, overflow: Bool) {
        let range = valueRange(at: index)
        bytes.replaceSubrange(range, with: value)
        let delta = Int64(value.count) - Int64(range.count)
        for position in (index + 1)..<ends.count {
            ends[position] = UInt32(Int64(ends[position]) + delta)
        }
        ends[index] = UInt32(range.lowerBound + value.count) | (overflow ? Leaf.overflowBit : 0)
    }

    package mutating func remove(at index: Int) {
        let range = valueRange(at: index)
        bytes.removeSubrange(range)
        let delta = UInt32(range.count)
        for position in (index + 1)..<ends.count { ends[position] -= delta }
        ends.remove(at: index)
        keys.remove(at: index)
    }

    /// Keeps entries `[0, index)` and returns the rest as a new leaf. Neither half counts as
    /// rewritten (see `LeafCompression.isHot`): the full half a run of appends leaves behind
    /// is packed, not kept whole.
    package mutating func split(at index: Int) -> Leaf {
        let cut = index == 0 ? 0 : Int(ends[index - 1] & ~Leaf.overflowBit)
        encodedAtVersion = 0
        var right = Leaf()
        right.keys = Array(keys[index...])
        right.bytes = Array(bytes[cut...])
        right.ends = ends[index...].map { ($0 & Leaf.overflowBit) | (($0 & ~Leaf.overflowBit) - UInt32(cut)) }
        keys.removeSubrange(index...)
        ends.removeSubrange(index...)
        bytes.removeSubrange(cut...)
        return right
    }

    /// Appends every entry of `other`, whose keys must all be greater than this leaf's.
    mutating func absorb(_ other: Leaf) {
        let base = UInt32(bytes.count)
        keys.append(contentsOf: other.keys)
        ends.append(contentsOf: other.ends.map { ($0 & Leaf.overflowBit) | (($0 & ~Leaf.overflowBit) + base) })
        bytes.append(contentsOf: other.bytes)
    }

    /// The index at which to split an oversized leaf so both halves hold about the same bytes.
    func balancedSplitIndex() -> Int {
        let half = bytes.count / 2
        var low = 1
        var high = count - 1
        while low < high {
            let middle = (low + high) >> 1
            if Int(ends[middle - 1] & ~Leaf.overflowBit) < half { low = middle + 1 } else { high = middle }
        }
        return max(1, min(low, count - 1))
    }
}
