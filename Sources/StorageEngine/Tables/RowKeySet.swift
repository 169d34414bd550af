/// A set of row keys that stays a sorted array while keys arrive in increasing order, which
/// is how bulk inserts and whole-table deletes produce them: recording a row then costs an
/// array append, not a hash. The first key out of order moves to a hash set; the two parts
/// never share a key.
package struct RowKeySet: Sendable, Equatable {
    private var run: [UInt64] = []
    private var others: Set<UInt64> = []

    package init() {}

    package init(_ keys: Set<UInt64>) {
        others = keys
    }

    package var isEmpty: Bool { run.isEmpty && others.isEmpty }

    package var count: Int { run.count + others.count }

    /// The keys as a set.
    package var set: Set<UInt64> {
        guard !run.isEmpty else { return others }
        var keys = others
        keys.reserveCapacity(count)
        for key in run { keys.insert(key) }
        return keys
    }

    package func contains(_ key: UInt64) -> Bool {
        if let first = run.first, key >= first, key <= run[run.count - 1] {
            let position = run.partitionPoint { $0 < key }
            if run[position] == key { return true }
        }
        return others.contains(key)
    }

    /// Adds `key`, which the set does not hold.
    package mutating func insert(_ key: UInt64) {
        if others.isEmpty, run.last.map({ key > $0 }) ?? true {
            run.append(key)
        } else {
            others.insert(key)
        }
    }

    /// Adds `keys`, increasing and none of them held, at once.
    package mutating func insert(increasing keys: [UInt64]) {
        if isEmpty {
            run = keys
        } else {
            for key in keys { insert(key) }
        }
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    package mutating func remove(_ key: UInt64) -> Bool {
        if others.remove(key) != nil { return true }
        guard contains(key) else { return false }
        // Rare (a row inserted and deleted again in one transaction): the run becomes a set.
        others.reserveCapacity(count)
        for existing in run where existing != key { others.insert(existing) }
        run = []
        return true
    }

    package static func == (left: RowKeySet, right: RowKeySet) -> Bool {
        left.count == right.count && left.set == right.set
    }
}
