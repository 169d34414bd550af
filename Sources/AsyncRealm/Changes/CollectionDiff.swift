/// The indices a collection change reports, computed from the collection's elements before
/// and after and the set of objects that were modified.
struct CollectionDiff: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The change between two collections of distinct keys (results, linking objects).
    ///
    /// A key only in `old` is a deletion, only in `new` an insertion. Of the keys in both, the
    /// longest run that kept its relative order stays; the others moved, each a deletion at
    /// its old index and an insertion at its new one. A key that stayed and is in `modified`
    /// is a modification at its old index. Equal prefixes and suffixes are matched first, so a
    /// change near the ends of a long collection hashes only the middle.
    static func ofKeys(old: [UInt64], new: [UInt64], modified: Set<UInt64>) -> CollectionDiff {
        var diff = CollectionDiff()
        let (prefix, suffix) = commonEnds(old, new)
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)
        let isModified = KeyFilter(modified)
        if !modified.isEmpty {
            for index in 0..<prefix where isModified(old[index]) { diff.modifications.append(index) }
        }
        if !oldMiddle.isEmpty || !newMiddle.isEmpty {
            var newIndex: [UInt64: Int] = [:]
            newIndex.reserveCapacity(newMiddle.count)
            for index in newMiddle { newIndex[new[index]] = index }
            var oldIndex: [UInt64: Int] = [:]
            oldIndex.reserveCapacity(oldMiddle.count)
            for index in oldMiddle { oldIndex[old[index]] = index }
            // The old indices of the kept keys, in their new order.
            var keptOldIndices: [Int] = []
            var keptNewIndices: [Int] = []
            for index in newMiddle {
                if let was = oldIndex[new[index]] {
                    keptOldIndices.append(was)
                    keptNewIndices.append(index)
                } else {
                    diff.insertions.append(index)
                }
            }
            for index in oldMiddle where newIndex[old[index]] == nil { diff.deletions.append(index) }
            let stays = staying(keptOldIndices) { modified.contains(old[$0]) }
            for (position, was) in keptOldIndices.enumerated() {
                if stays[position] {
                    if modified.contains(old[was]) { diff.modifications.append(was) }
                } else {
                    diff.deletions.append(was)
                    diff.insertions.append(keptNewIndices[position])
                }
            }
        }
        if !modified.isEmpty {
            for index in (old.count - suffix)..<old.count where isModified(old[index]) { diff.modifications.append(index) }
        }
        diff.sort()
        return diff
    }

    /// The change between two sequences that may repeat elements (a list): equal ends are
    /// kept; a middle of equal length changed element by element (modifications where they
    /// differ), otherwise its old elements are deleted and the new ones inserted. Elements
    /// kept that are modified objects are modifications.
    static func ofSequence<E: Equatable>(old: [E], new: [E], isModified: (E) -> Bool) -> CollectionDiff {
        var diff = CollectionDiff()
        let (prefix, suffix) = commonEnds(old, new)
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)
        for index in 0..<prefix where isModified(old[index]) { diff.modifications.append(index) }
        if oldMiddle.count == newMiddle.count {
            for index in oldMiddle where old[index] != new[index] || isModified(old[index]) {
                diff.modifications.append(index)
            }
        } else {
            diff.deletions = Array(oldMiddle)
            diff.insertions = Array(newMiddle)
        }
        for index in (old.count - suffix)..<old.count where isModified(old[index]) { diff.modifications.append(index) }
        diff.sort()
        return diff
    }

    private mutating func sort() {
        deletions.sort()
        insertions.sort()
        modifications.sort()
    }

    /// How many leading and trailing elements the two sequences share (not overlapping).
    private static func commonEnds<E: Equatable>(_ old: [E], _ new: [E]) -> (prefix: Int, suffix: Int) {
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        return (prefix, suffix)
    }

    /// Which of the kept elements (old indices in new order) stay rather than move: a longest
    /// increasing run of the unmodified ones, plus each modified one whose old index still
    /// fits between its staying neighbours. Of two equally short descriptions, the one that
    /// moves modified objects (whose sort key may have changed) is what a reader expects.
    private static func staying(_ oldIndices: [Int], isModified: (Int) -> Bool) -> [Bool] {
        let unmodified = oldIndices.indices.filter { !isModified(oldIndices[$0]) }
        var stays = [Bool](repeating: false, count: oldIndices.count)
        for (position, stay) in zip(unmodified, longestIncreasingRun(unmodified.map { oldIndices[$0] })) where stay {
            stays[position] = true
        }
        // The old index of the next staying element after each position.
        var nextStaying = [Int](repeating: Int.max, count: oldIndices.count)
        var upcoming = Int.max
        for position in oldIndices.indices.reversed() {
            nextStaying[position] = upcoming
            if stays[position] { upcoming = oldIndices[position] }
        }
        var previous = Int.min
        for position in oldIndices.indices {
            if stays[position] {
                previous = oldIndices[position]
            } else if isModified(oldIndices[position]), oldIndices[position] > previous, oldIndices[position] < nextStaying[position] {
                stays[position] = true
                previous = oldIndices[position]
            }
        }
        return stays
    }

    /// Marks one longest strictly increasing subsequence of `values` (patience sorting,
    /// O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []          // positions of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var marks = [Bool](repeating: false, count: values.count)
        var position = tails[tails.count - 1]
        while position >= 0 {
            marks[position] = true
            position = previous[position]
        }
        return marks
    }
}

/// Membership in a set of row keys, for testing every key of a long collection: a bitmap over
/// the keys' range when that is small (a shift and a mask per test, no hashing), else the set.
struct KeyFilter {
    private let set: Set<UInt64>
    private let low: UInt64
    private let bits: [UInt64]

    init(_ keys: Set<UInt64>) {
        set = keys
        guard let low = keys.min(), let high = keys.max(), high - low < 1 << 26 else {
            self.low = 0
            bits = []
            return
        }
        self.low = low
        var bits = [UInt64](repeating: 0, count: Int((high - low) >> 6) + 1)
        for key in keys { bits[Int((key - low) >> 6)] |= 1 << ((key - low) & 63) }
        self.bits = bits
    }

    @inline(__always)
    func callAsFunction(_ key: UInt64) -> Bool {
        guard !bits.isEmpty else { return set.contains(key) }
        let offset = key &- low
        guard key >= low, Int(offset >> 6) < bits.count else { return false }
        return bits[Int(offset >> 6)] & (1 << (offset & 63)) != 0
    }
}
