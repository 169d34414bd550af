import Testing
import TestSupport
@testable import StorageEngine

@Suite("B+tree")
struct TreeTests {
    static func height(_ tree: some TreeReading) throws -> Int {
        var height = 1
        var child = tree.rootChild
        while case .branch(let branch) = try tree.node(child) {
            height += 1
            child = branch.children[0]
        }
        return height
    }

    @Test("a leaf's search finds the first key not less than the one sought, and a branch the child holding it, however their keys are spread")
    func leafSearch() {
        var random = SeededGenerator(seed: 41)
        // Dense, evenly spaced, random, bunched at one end, and at the extremes of UInt64.
        let spreads: [(Int) -> [UInt64]] = [
            { count in (0..<count).map { UInt64($0) + 1_000 } },
            { count in (0..<count).map { UInt64($0) * 977 } },
            { count in (0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) } },
            { count in (0..<count).map { UInt64($0 * $0 * $0) } },
            { count in (0..<count).map { UInt64(1) << UInt64($0 % 64) &+ UInt64($0) } },
            { count in (0..<count).map { $0 < count / 2 ? UInt64($0) : UInt64.max - UInt64(count - $0) } },
        ]
        var checked = 0
        for spread in spreads {
            for count in [0, 1, 2, 16, 17, 18, 40, 300] {
                let keys = Array(Set(spread(count))).sorted()
                let leaf = Leaf(keys: keys, ends: keys.map { _ in 0 }, bytes: [])
                let branch = Branch(keys: keys, children: (0...keys.count).map { Child.dirtyLeaf($0) })
                var probes: [UInt64] = keys.flatMap { [$0, $0 &- 1, $0 &+ 1] } + [0, UInt64.max]
                probes += (0..<50).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
                for probe in probes {
                    // A branch's child for a key: the number of separators not greater than it.
                    let child = keys.filter { $0 <= probe }.count
                    #expect(branch.childIndex(for: probe) == child, "\(probe) in \(keys.count) separators")
                    for start in Set([0, keys.count / 3, max(keys.count - 17, 0)]) where start <= keys.count {
                        // The keys before `start` must be less than the probe.
                        guard start == 0 || keys[start - 1] < probe else { continue }
                        let expected = keys[start...].firstIndex { $0 >= probe } ?? keys.count
                        let (index, found) = leaf.search(probe, from: start)
                        #expect(index == expected && found == (expected < keys.count && keys[expected] == probe),
                                "\(probe) from \(start) in \(keys.count) keys: \(index), expected \(expected)")
                        // What a parent's separators say of the keys only guides the search:
                        // right, loose or wrong, the answer is the same.
                        for span in spans(of: keys, random: &random) {
                            let index = keys.withUnsafeBufferPointer { KeySearch.firstIndex(notLessThan: probe, in: $0, from: start, within: span) }
                            #expect(index == expected, "\(probe) within \(span) in \(keys.count) keys: \(index), expected \(expected)")
                            if start == 0 {
                                let index = keys.withUnsafeBufferPointer { KeySearch.childIndex(for: probe, separators: $0, within: span) }
                                #expect(index == child, "child of \(probe) within \(span) in \(keys.count) separators: \(index), expected \(child)")
                            }
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 10_000)
    }

    @Test("a branch's interpolated guess names the child holding the key when its children are even, with or without its parent's span")
    func childGuess() {
        // 40 separators a hundred keys apart cut [0, 4100) into 41 children of a hundred keys:
        // what a branch over leaves of rows looks like.
        let keys = (1...40).map { UInt64($0) * 100 }
        for span in [KeySpan(lower: 0, upper: 4_100), KeySpan()] {
            var right = 0
            var wrong = 0
            for key in UInt64(0)..<4_100 {
                var guessed = -1
                let child = keys.withUnsafeBufferPointer { KeySearch.childIndex(for: key, separators: $0, within: span) { guessed = $0 } }
                #expect(child == keys.filter { $0 <= key }.count)
                // Keys before the first separator or after the last are answered without a guess.
                guard guessed >= 0 else { continue }
                if guessed == child { right += 1 } else { wrong += 1 }
            }
            // Only a child's last key can be guessed one child on (the search looks for the
            // first separator above the key).
            #expect(right > 0 && wrong * 50 <= right, "\(span): \(wrong) guesses wrong, \(right) right")
        }
    }

    /// Spans a parent might know of `keys`: exact, loose, one-sided, and arbitrary.
    private func spans(of keys: [UInt64], random: inout SeededGenerator) -> [KeySpan] {
        let first = keys.first ?? 0
        let last = keys.last ?? 0
        let arbitrary = [UInt64.random(in: 0...UInt64.max, using: &random), UInt64.random(in: 0...UInt64.max, using: &random)].sorted()
        return [
            KeySpan(lower: first, upper: last == .max ? nil : last + 1),
            KeySpan(lower: first / 2, upper: last / 2 + last / 2 + 1),
            KeySpan(lower: first),
            KeySpan(lower: arbitrary[0], upper: arbitrary[1]),
        ]
    }

    @Test("bulk append fills leaves, deletes merge them back, and the tree shrinks to a leaf")
    func appendThenDelete() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in UInt64(1)...200_000 { try table.rowTree.append(key, [UInt8](repeating: UInt8(key % 251), count: 12)) }
            #expect(try Self.height(table.rowTree) == 2)
        }
        let filled = try TreeReader(store: database.snapshot().store, root: database.snapshot().catalog.tables["t"]!.rows)
        var leaves = 0
        var child = filled.rootChild
        // Count leaves under the first branch: appended leaves are full, so there are few.
        while case .branch(let branch) = try filled.node(child) { child = branch.children[0]; leaves = branch.children.count }
        #expect(leaves > 100)

        try database.write { transaction in
            let tree = try transaction.table("t").rowTree
            for key in UInt64(1)...200_000 where key % 1000 != 0 { #expect(try tree.delete(key)) }
            #expect(try !tree.delete(5))
            #expect(try Self.height(tree) <= 2)
        }
        let tree = TreeReader(store: try database.snapshot().store, root: try database.snapshot().catalog.tables["t"]!.rows)
        var keys: [UInt64] = []
        try tree.scan { key, value in
            keys.append(key)
            #expect(Array(value) == [UInt8](repeating: UInt8(key % 251), count: 12))
            return true
        }
        #expect(keys == Array(stride(from: UInt64(1000), through: 200_000, by: 1000)))
        #expect(try Self.height(tree) == 1)
    }

    @Test("a large commit's leaves, encoded on several threads, are the pages one thread makes")
    func parallelLeafEncoding() throws {
        var random = SeededGenerator(seed: 7)
        let leaves: [Leaf] = (0..<48).map { number in
            var leaf = Leaf()
            for entry in 0..<(50 + number * 3) {
                // Few distinct bytes, so that LZ4 finds matches, in values of varied lengths.
                let value = (0..<(8 + entry % 40)).map { _ in UInt8.random(in: 0...3, using: &random) }
                value.withUnsafeBytes { leaf.append(key: UInt64(number * 1000 + entry), value: $0, overflow: false) }
            }
            return leaf
        }
        let indices = Array((0..<48).reversed())
        let pages = ParallelLeafEncoding.encode(indices, of: leaves)
        #expect(pages.count == leaves.count)
        for index in indices {
            let sequential = PageCodec.encode(kind: .leaf, raw: NodeCodec.encode(leaves[index]))
            #expect(pages[index]?.page == sequential, "leaf \(index)")
        }
    }

    @Test("leaves a bulk append filled are encoded while it goes on; a leaf changed afterwards is encoded again at commit; the tree reads back whole")
    func earlyLeafEncoding() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        var random = SeededGenerator(seed: testSeed())
        func value(_ key: UInt64) -> [UInt8] {
            (0..<(10 + Int(key % 50))).map { _ in UInt8.random(in: 0...7, using: &random) }
        }
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            for key in UInt64(1)...20_000 {
                let bytes = value(key)
                try tree.append(key, bytes)
                model[key] = bytes
            }
            #expect(tree.earlyEncoding != nil, "the filled leaves were handed over")
            // Rows in leaves handed over already, changed: the commit must encode those leaves
            // again rather than take the pages made before the change.
            for key in stride(from: UInt64(7), through: 15_000, by: 997) {
                let bytes = [UInt8](repeating: 0xEE, count: 30 + Int(key % 7))
                try tree.put(key, bytes)
                model[key] = bytes
            }
            _ = try tree.delete(12_345)
            model[12_345] = nil
        }
        let reopened = try Database.open(file: file)
        let root = try #require(reopened.snapshot().catalog.tables["t"]).rows
        var seen: [UInt64: [UInt8]] = [:]
        try TreeReader(store: reopened.shared.store, root: root).scan { key, bytes in
            seen[key] = Array(bytes)
            return true
        }
        #expect(seen.count == model.count)
        #expect(seen == model)

        // A transaction that fills leaves and then frees the tree, or ends without committing,
        // leaves nothing behind.
        let transaction = try reopened.beginWrite()
        let tree = try transaction.table("t").rowTree
        for key in UInt64(30_000)...40_000 { try tree.append(key, [1, 2, 3]) }
        try tree.freeAll()
        #expect(tree.earlyEncoding == nil)
        transaction.rollback()
        var after = 0
        try TreeReader(store: reopened.shared.store, root: try #require(reopened.snapshot().catalog.tables["t"]).rows).scan { key, bytes in
            #expect(model[key] == Array(bytes))
            after += 1
            return true
        }
        #expect(after == model.count)
    }

    @Test("putOrAppend agrees with a dictionary through runs of increasing keys, random keys and deletes")
    func putOrAppend() throws {
        let database = try Database.open(file: InMemoryFile())
        var model: [UInt64: [UInt8]] = [:]
        var random = SystemRandomNumberGenerator()
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            var next: UInt64 = 1
            for round in 0..<40 {
                // A run of increasing keys (the tree switches to appending), then scattered ones.
                for _ in 0..<Int.random(in: 1...400, using: &random) {
                    next += UInt64.random(in: 1...3, using: &random)
                    let value = [UInt8](repeating: UInt8(truncatingIfNeeded: next), count: Int.random(in: 0...40, using: &random))
                    try tree.putOrAppend(next, value)
                    model[next] = value
                }
                for _ in 0..<Int.random(in: 0...50, using: &random) {
                    let key = UInt64.random(in: 1...next, using: &random)
                    if round % 3 == 0, model[key] != nil {
                        #expect(try tree.delete(key))
                        model[key] = nil
                    } else {
                        #expect(try !tree.isAfterLastKey(key) || model.keys.allSatisfy { $0 < key }, "isAfterLastKey never claims too much")
                        try tree.putOrAppend(key, [UInt8(round)])
                        model[key] = [UInt8(round)]
                    }
                }
            }
            var seen: [UInt64: [UInt8]] = [:]
            try tree.scan { key, value in
                seen[key] = Array(value)
                return true
            }
            #expect(seen == model)
        }
    }

    @Test("cursors, range scans and batched lookups visit exactly the keys asked for, in order")
    func ranges() throws {
        let database = try Database.open(file: InMemoryFile())
        var random = SeededGenerator(seed: 11)
        var model: [UInt64: [UInt8]] = [:]
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            for _ in 0..<20_000 {
                let key = UInt64.random(in: 0...1_000_000, using: &random)
                let value = [UInt8](repeating: UInt8(key % 200), count: key % 97 == 0 ? 5000 : Int(key % 40))
                try tree.put(key, value)
                model[key] = value
            }
        }
        let tree = TreeReader(store: try database.snapshot().store, root: try database.snapshot().catalog.tables["t"]!.rows)
        let sortedKeys = model.keys.sorted()
        for _ in 0..<50 {
            let low = UInt64.random(in: 0...1_000_000, using: &random)
            let high = low + UInt64.random(in: 0...50_000, using: &random)
            var seen: [UInt64] = []
            try tree.scan(low...high) { key, value in
                #expect(Array(value) == model[key])
                seen.append(key)
                return true
            }
            #expect(seen == sortedKeys.filter { (low...high).contains($0) })
            var cursor = try tree.cursor(from: low)
            #expect(cursor.key == sortedKeys.first { $0 >= low })
            if cursor.key != nil {
                try cursor.advance()
                #expect(cursor.key == sortedKeys.filter { $0 >= low }.dropFirst().first)
            }
        }
        #expect(try tree.lastKey() == sortedKeys.last)

        // Looking up sorted batches of keys (present, absent, repeated, overflowing) finds what
        // one lookup per key finds, in the same order: random batches, and dense ones, which a
        // leaf walks entry by entry (every key; every key with a few repeated and absent ones
        // among them; every other key).
        var batches = [1, 7, 300, 5_000].map { batchSize in
            var batch = (0..<batchSize).map { _ in
                Bool.random(using: &random) ? sortedKeys.randomElement(using: &random)! : UInt64.random(in: 0...1_000_100, using: &random)
            }
            batch += batch.prefix(batchSize / 10)
            return batch.sorted()
        }
        batches.append(sortedKeys)
        batches.append(sortedKeys.flatMap { key in key % 7 == 0 ? [key, key, key + 1] : [key] })
        batches.append(sortedKeys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        for batch in batches {
            var found: [(Int, [UInt8])] = []
            try batch.withUnsafeBufferPointer { keys in
                try tree.withValues(forSortedKeys: keys) { index, value in found.append((index, Array(value))) }
            }
            let expected = batch.indices.compactMap { index in model[batch[index]].map { (index, $0) } }
            #expect(found.map(\.0) == expected.map(\.0), "a batch of \(batch.count) keys")
            #expect(found.map(\.1) == expected.map(\.1))
        }
    }

    @Test("copying a value out gives the bytes a lookup reads, or says they do not fit or are absent: through a cold cache, a warm one, and a transaction's tree")
    func copyValue() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        // Empty values, short ones, and values in overflow pages.
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            for key in UInt64(1)...3000 where key % 3 != 0 {
                let value = (0..<(key % 101 == 0 ? 5000 : Int(key % 40))).map { UInt8(truncatingIfNeeded: Int(key) &+ $0) }
                try tree.put(key, value)
                model[key] = value
            }
        }
        func check(_ tree: some TreeReading, _ label: String) throws {
            for room in [0, 16, 64, 6000] {
                var buffer = [UInt8](repeating: 0xEE, count: room + 8)
                for key in UInt64(0)...3001 {
                    let copy = try buffer.withUnsafeMutableBytes { try tree.copyValue(forKey: key, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<room])) }
                    guard let value = model[key] else {
                        #expect(copy == .absent, "\(label): key \(key)")
                        continue
                    }
                    guard value.count <= room else {
                        #expect(copy == .tooLong, "\(label): key \(key), \(value.count) bytes into \(room)")
                        continue
                    }
                    #expect(copy == .copied(value.count), "\(label): key \(key)")
                    #expect(Array(buffer[..<value.count]) == value, "\(label): key \(key)")
                    #expect(buffer[room...].allSatisfy { $0 == 0xEE }, "\(label): nothing written past the room given")
                }
            }
        }
        // A fresh store reads every node from the file; the second pass finds them cached.
        let reopened = try Database.open(file: file)
        let snapshot = try reopened.snapshot()
        let stored = TreeReader(store: snapshot.store, root: try #require(snapshot.catalog.tables["t"]).rows)
        try check(stored, "cold cache")
        try check(stored, "warm cache")
        // A transaction's tree, changed on one path: its dirty nodes are read in memory.
        try reopened.write { transaction in
            let tree = try transaction.table("t").rowTree
            try tree.put(2, [1, 2, 3])
            model[2] = [1, 2, 3]
            try check(tree, "transaction")
        }
    }

    @Test("a leaf whose keys are a run is searched by position: keys before, inside and after it, runs ending at 2^32, and leaves with a gap")
    func runLeaves() throws {
        func leaf(_ keys: [UInt64]) -> Leaf {
            var leaf = Leaf()
            for key in keys {
                let value = [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: Int(key % 5))
                value.withUnsafeBytes { leaf.append(key: key, value: $0, overflow: false) }
            }
            return leaf
        }
        let top = UInt64(UInt32.max)
        let cases: [(keys: [UInt64], isRun: Bool)] = [
            (Array(1...200), true), (Array(7...7), true), (Array(top - 50...top), true),
            (Array(top - 50...top + 1), false), (Array(top + 1...top + 50), false),
            (Array(1...100) + Array(102...200), false), ([3, 5], false), ([], false),
        ]
        let fences = LeafFences()
        for (keys, isRun) in cases {
            let node = Node.leaf(leaf(keys))
            let summary = NodeSummary(node, at: PageRef(offset: 4096, length: 100, checksum: 1), slot: 0, referenced: false)
            #expect(summary.isRun == isRun, "keys \(keys.first ?? 0)...\(keys.last ?? 0), \(keys.count) of them")
            #expect(summary.usesFences == (!isRun && keys.count > LeafFences.minimumKeys))
            guard case .leaf(let stored) = node else { continue }
            let block = summary.usesFences ? stored.keys.withUnsafeBufferPointer { fences.take($0) } : 0
            var probes: [UInt64] = [0, 1, 2, top - 1, top, top + 1, .max, .max - 1]
            for key in keys { probes += [key, key &- 1, key &+ 1] }
            for key in probes {
                let expected = stored.storedValue(for: key).map { ($0.range, $0.isOverflow) }
                let found = summary.value(for: key, within: KeySpan(), fences: summary.usesFences ? fences.block(block) : nil)
                #expect(found?.range == expected?.0 && found?.isOverflow == expected?.1, "key \(key)")
            }
        }
    }
}
