/// Read access shared by a snapshot's trees and a write transaction's trees.
package protocol TreeReading {
    var store: PageStore { get }
    var rootChild: Child { get }
    /// The node a child pointer refers to, dirty or stored.
    func node(_ child: Child) throws -> Node
    /// Calls `body` with the bytes stored under `key`, or returns nil if there are none.
    func withValue<Result>(forKey key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result?
    /// Copies the bytes stored under `key` into `buffer` when they fit (see `ValueCopy`); a
    /// `directory` given learns the leaf found, if the tree's pages are cached ones (see
    /// `LeafDirectory`).
    func copyValue(forKey key: UInt64, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory?) throws -> ValueCopy
}

extension TreeReading {
    /// Calls `body` with the bytes stored under `key`, or returns nil if there are none.
    @inline(__always)
    package func withValue<Result>(
        forKey key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        var child = rootChild
        while true {
            switch try node(child) {
            case .branch(let branch):
                child = branch.children[branch.childIndex(for: key)]
            case .leaf(let leaf):
                return try leaf.storedValue(for: key)?.withBytes(store: store, body)
            }
        }
    }

    /// Copies the bytes stored under `key` into `buffer` when they fit. A tree of nodes in
    /// memory records nothing in a `directory`: its leaves are not the cache's.
    package func copyValue(
        forKey key: UInt64, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory?
    ) throws -> ValueCopy {
        try withValue(forKey: key) { ValueCopy.copy($0, into: buffer) } ?? .absent
    }

    /// Copies the bytes stored under `key` into `buffer` when they fit.
    package func copyValue(forKey key: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> ValueCopy {
        try copyValue(forKey: key, into: buffer, noting: nil)
    }

    package func contains(_ key: UInt64) throws -> Bool {
        try withValue(forKey: key) { _ in true } ?? false
    }

    /// A cursor positioned at the first key not less than `key`.
    package func cursor(from key: UInt64 = 0) throws -> TreeCursor<Self> {
        try TreeCursor(tree: self, from: key)
    }

    /// Visits entries with keys in `range` in key order until `body` returns false.
    ///
    /// Walks the tree directly rather than through a cursor: each leaf's bytes are pinned once
    /// and its entries handed out in a tight loop, which is what a full scan spends its time on.
    package func scan(
        _ range: ClosedRange<UInt64> = 0...UInt64.max,
        _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        _ = try scan(rootChild, range, body)
    }

    private func scan(
        _ child: Child, _ range: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        switch try node(child) {
        case .branch(let branch):
            let first = branch.childIndex(for: range.lowerBound)
            let last = branch.childIndex(for: range.upperBound)
            for position in first...last {
                guard try scan(branch.children[position], range, body) else { return false }
            }
            return true
        case .leaf(let leaf):
            let start = leaf.search(range.lowerBound).index
            // Through the arrays' buffers, each value starting where the last ended: a scan
            // spends little per row besides the caller's body, so bounds checks showed.
            return try leaf.bytes.withUnsafeBytes { bytes in
                try leaf.keys.withUnsafeBufferPointer { keys in
                    try leaf.ends.withUnsafeBufferPointer { ends in
                        require(ends.count == keys.count, "leaf with \(keys.count) keys and \(ends.count) value ends")
                        guard start < keys.count else { return true }
                        var valueStart = start == 0 ? 0 : Int(ends[start - 1] & ~Leaf.overflowBit)
                        for index in start..<keys.count {
                            let key = keys[index]
                            guard key <= range.upperBound else { return false }
                            let end = ends[index]
                            let valueEnd = Int(end & ~Leaf.overflowBit)
                            require(valueStart <= valueEnd && valueEnd <= bytes.count, "leaf value ends out of order")
                            let keepGoing: Bool
                            if end & Leaf.overflowBit != 0 {
                                keepGoing = try leaf.withValue(at: index, store: store) { try body(key, $0) }
                            } else {
                                keepGoing = try body(key, UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]))
                            }
                            guard keepGoing else { return false }
                            valueStart = valueEnd
                        }
                        return true
                    }
                }
            }
        }
    }

    /// The leaf holding the first key not below `key`, and that key's index in it; nil if no
    /// key is.
    func leaf(from key: UInt64) throws -> (leaf: Leaf, start: Int)? {
        try leaf(rootChild, from: key)
    }

    private func leaf(_ child: Child, from key: UInt64) throws -> (leaf: Leaf, start: Int)? {
        switch try node(child) {
        case .branch(let branch):
            for position in branch.childIndex(for: key)..<branch.children.count {
                if let found = try leaf(branch.children[position], from: key) { return found }
            }
            return nil
        case .leaf(let leaf):
            let start = leaf.search(key).index
            guard start < leaf.count else { return nil }
            require(leaf.ends.count == leaf.keys.count, "leaf with \(leaf.keys.count) keys and \(leaf.ends.count) value ends")
            return (leaf, start)
        }
    }

    /// Calls `body` with each leaf holding keys from `key` on, in key order, until it returns
    /// false: the leaf's entries in place, from the first key not below `key`. For a reader
    /// that goes through many entries in one loop of its own (a sum over every row), where a
    /// call per entry cost more than the work.
    func scanLeaves(from key: UInt64, _ body: (LeafEntries) throws -> Bool) throws {
        _ = try scanLeaves(rootChild, from: key, body)
    }

    private func scanLeaves(_ child: Child, from key: UInt64, _ body: (LeafEntries) throws -> Bool) throws -> Bool {
        switch try node(child) {
        case .branch(let branch):
            for position in branch.childIndex(for: key)..<branch.children.count {
                guard try scanLeaves(branch.children[position], from: key, body) else { return false }
            }
            return true
        case .leaf(let leaf):
            let start = leaf.search(key).index
            guard start < leaf.count else { return true }
            return try leaf.bytes.withUnsafeBytes { bytes in
                try leaf.keys.withUnsafeBufferPointer { keys in
                    try leaf.ends.withUnsafeBufferPointer { ends in
                        require(ends.count == keys.count && Int(ends.last! & ~Leaf.overflowBit) <= bytes.count, "leaf value ends out of range")
                        return try body(LeafEntries(keys: keys, ends: ends, bytes: bytes, start: start))
                    }
                }
            }
        }
    }

    /// Calls `body` with each of `keys` (ascending, repeats allowed) that the tree holds and its
    /// bytes, in that order; keys not in the tree are skipped.
    ///
    /// Descends once per node the keys fall into instead of once per key: looking up a batch
    /// of keys costs a node visit per leaf they share, which is what reading the objects of a
    /// sorted or filtered collection spends its time on otherwise.
    func withValues(
        forSortedKeys keys: UnsafeBufferPointer<UInt64>, _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard !keys.isEmpty else { return }
        try withValues(rootChild, keys, 0..<keys.count, body)
    }

    private func withValues(
        _ child: Child, _ keys: UnsafeBufferPointer<UInt64>, _ range: Range<Int>,
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        switch try node(child) {
        case .branch(let branch):
            var start = range.lowerBound
            while start < range.upperBound {
                let position = branch.childIndex(for: keys[start])
                // The run of keys below the next separator goes to the same child.
                var end = start + 1
                if position < branch.keys.count {
                    let limit = branch.keys[position]
                    while end < range.upperBound, keys[end] < limit { end += 1 }
                } else {
                    end = range.upperBound
                }
                try withValues(branch.children[position], keys, start..<end, body)
                start = end
            }
        case .leaf(let leaf):
            // The keys ascend, so each is at or after the one before; in a dense run (every
            // row of a table, sorted) it is the very next entry, found without a search.
            var next = 0
            for index in range {
                let key = keys[index]
                if next < leaf.count && leaf.keys[next] < key {
                    next += 1
                    if next < leaf.count && leaf.keys[next] < key { next = leaf.search(key, from: next + 1).index }
                }
                guard next < leaf.count, leaf.keys[next] == key else { continue }
                try leaf.withValue(at: next, store: store) { try body(index, $0) }
            }
        }
    }

    /// The largest key in the tree.
    func lastKey() throws -> UInt64? {
        var child = rootChild
        while true {
            switch try node(child) {
            case .branch(let branch): child = branch.children[branch.children.count - 1]
            case .leaf(let leaf):
                if let key = leaf.keys.last { return key }
                // Only a root leaf or a lone child may be empty; fall back to a full scan.
                var cursor = try self.cursor()
                var last: UInt64?
                while let key = cursor.key { last = key; try cursor.advance() }
                return last
            }
        }
    }
}

/// A read-only tree rooted at a stored page: how snapshots read.
package struct TreeReader: TreeReading, Sendable {
    package let store: PageStore
    package let root: PageRef

    package init(store: PageStore, root: PageRef) {
        self.store = store
        self.root = root
    }

    package var rootChild: Child { .stored(root) }

    @inline(__always)
    package func node(_ child: Child) throws -> Node {
        guard case .stored(let ref) = child else {
            stopProgram("a stored tree has only stored children")
        }
        if ref.isNull { return .leaf(Leaf()) }
        return try store.node(ref)
    }

    /// Calls `body` with the bytes stored under `key`, found through the page cache under one
    /// lock while the path is cached (see `PageStore.withValue(forKey:from:_:)`).
    @inline(__always)
    package func withValue<Result>(forKey key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result? {
        if root.isNull { return nil }
        return try store.withValue(forKey: key, from: root, body)
    }

    /// Copies the bytes stored under `key` into `buffer` when they fit, straight from the
    /// cached leaf under the cache's lock while the path is cached (see
    /// `PageStore.copyValue(forKey:from:into:noting:)`).
    @inline(__always)
    package func copyValue(
        forKey key: UInt64, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory?
    ) throws -> ValueCopy {
        if root.isNull { return .absent }
        return try store.copyValue(forKey: key, from: root, into: buffer, noting: directory)
    }
}

/// The entries of one leaf from `start` on, in place (see `TreeReading.scanLeaves`): valid
/// only inside the call that hands them out.
package struct LeafEntries {
    package let keys: UnsafeBufferPointer<UInt64>
    /// Where each value ends in `bytes`, with `Leaf.overflowBit` set for a value stored in
    /// overflow pages (its bytes here are a reference to them, not the value).
    let ends: UnsafeBufferPointer<UInt32>
    package let bytes: UnsafeRawBufferPointer
    /// The first entry handed out.
    package let start: Int

    /// Whether entry `index` is stored in overflow pages: read it by its key instead.
    @inline(__always)
    func isOverflow(_ index: Int) -> Bool { ends[index] & Leaf.overflowBit != 0 }

    /// Where entry `index`'s value starts and ends in `bytes` (for an overflow entry, its
    /// reference).
    @inline(__always)
    func valueStart(_ index: Int) -> Int { index == 0 ? 0 : Int(ends[index - 1] & ~Leaf.overflowBit) }
    @inline(__always)
    func valueEnd(_ index: Int) -> Int { Int(ends[index] & ~Leaf.overflowBit) }
}
