import Testing
import TestSupport
@testable import StorageEngine

@Suite("Fences of a leaf's keys")
struct LeafFencesTests {
    /// Sorted distinct keys spread four ways: evenly, as an index keys text (the first eight
    /// bytes of lowercase names, only 26 of each byte's values), in dense runs with wide gaps,
    /// and at the ends of the range.
    static func keys(count: Int, spread: Int, using random: inout SeededGenerator) -> [UInt64] {
        var keys = Set<UInt64>()
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var run: UInt64 = 0
        while keys.count < count {
            switch spread {
            case 0:
                keys.insert(UInt64.random(in: 1...(UInt64.max - 1), using: &random))
            case 1:
                keys.insert((0..<8).reduce(UInt64(0)) { key, _ in key << 8 | UInt64(letters.randomElement(using: &random)!) })
            case 2:
                if keys.count % 40 == 0 { run = UInt64.random(in: 0...(1 << 40), using: &random) }
                run += UInt64.random(in: 1...3, using: &random)
                keys.insert(run)
            default:
                keys.insert(keys.count % 2 == 0 ? UInt64(keys.count) : UInt64.max - UInt64(keys.count))
            }
        }
        return keys.sorted()
    }

    /// Keys just around each key, past both ends, and between the first two.
    static func probes(around keys: [UInt64]) -> [UInt64] {
        var probes: [UInt64] = [0, 1, .max, .max - 1, keys[0] / 2 + keys[1] / 2]
        for key in keys {
            probes.append(key)
            if key > 0 { probes.append(key - 1) }
            if key < .max { probes.append(key + 1) }
        }
        return probes
    }

    @Test("a search through a leaf's fences finds the first key not less than a probe, for leaves of every size and spread")
    func searchMatchesHalving() {
        var random = SeededGenerator(seed: 31)
        let fences = LeafFences()
        for count in [33, 34, 63, 64, 65, 100, 255, 256, 257, 511, 800, 2_047] {
            for spread in 0..<4 {
                let sorted = Self.keys(count: count, spread: spread, using: &random)
                sorted.withUnsafeBufferPointer { keys in
                    let block = fences.take(keys)
                    defer { fences.giveBack(block) }
                    for probe in Self.probes(around: sorted) {
                        var first: Int?
                        let found = LeafFences.firstIndex(notLessThan: probe, in: keys, fences: fences.block(block)) { first = $0 }
                        let expected = sorted.partitionPoint { $0 < probe }
                        #expect(found == expected, "\(count) keys, spread \(spread), probe \(probe)")
                        // The range announced holds the answer.
                        if let first { #expect(first <= expected, "\(count) keys, spread \(spread), probe \(probe)") }
                    }
                }
            }
        }
    }

    @Test("the cache searches a leaf whose keys are not a run through its fences, written anew for a leaf that takes its slot")
    func cacheRewritesFences() {
        var random = SeededGenerator(seed: 5)
        let cache = PageCache(capacityBytes: 1 << 20)
        func leaf(_ keys: [UInt64]) -> Node {
            .leaf(Leaf(keys: keys, ends: keys.indices.map { UInt32($0 + 1) }, bytes: keys.map { UInt8(truncatingIfNeeded: $0 % 251) }))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { buffer.deallocate() }
        func expectLookups(_ keys: [UInt64], from ref: PageRef, _ comment: Comment) {
            let present = Set(keys)
            for probe in Self.probes(around: keys) {
                let isPresent = present.contains(probe)
                switch cache.locate(probe, from: ref, copyingInto: buffer) {
                case .copied(1):
                    #expect(isPresent && buffer[0] == UInt8(truncatingIfNeeded: probe % 251), "probe \(probe), \(comment)")
                case .absent:
                    #expect(!isPresent, "probe \(probe) not found, \(comment)")
                default:
                    Issue.record("probe \(probe): an unexpected answer, \(comment)")
                }
            }
        }
        let first = Self.keys(count: 300, spread: 1, using: &random)
        let second = Self.keys(count: 300, spread: 1, using: &random)
        let third = Self.keys(count: 500, spread: 2, using: &random)
        // A page written again at the same offset replaces the node in its slot.
        let old = PageRef(offset: 8192, length: 100, checksum: 1)
        cache.insert(leaf(first), for: old, cost: 4096)
        expectLookups(first, from: old, "the first leaf")
        let rewritten = PageRef(offset: 8192, length: 100, checksum: 2)
        cache.insert(leaf(second), for: rewritten, cost: 4096)
        expectLookups(second, from: rewritten, "the leaf written in its place")
        // A held node released frees its slot, which the next node placed takes.
        let held = PageRef(offset: 16384, length: 100, checksum: 3)
        cache.hold([(ref: held, node: leaf(first))], cost: { _ in 4096 })
        expectLookups(first, from: held, "a held leaf")
        cache.release(held)
        let next = PageRef(offset: 24576, length: 100, checksum: 4)
        cache.insert(leaf(third), for: next, cost: 4096)
        expectLookups(third, from: next, "the leaf in the released slot")
        expectLookups(second, from: rewritten, "the leaf beside it")
        #expect(cache.fenceBlocksInUse == 2)
    }

    @Test("fence blocks are held by the leaves cached now: evicted, replaced and released leaves give theirs back, and small nodes take none")
    func fenceBlocksFollowTheCache() {
        var random = SeededGenerator(seed: 8)
        let cache = PageCache(capacityBytes: 40 * 4096)
        let keys = Self.keys(count: 100, spread: 1, using: &random)
        let fenced = Node.leaf(Leaf(keys: keys, ends: keys.indices.map { UInt32($0 + 1) }, bytes: [UInt8](repeating: 1, count: keys.count)))
        let small = Node.leaf(Leaf(keys: [1, 5, 9], ends: [1, 2, 3], bytes: [1, 2, 3]))
        let run = Node.leaf(Leaf(keys: Array(1...100), ends: (1...100).map { UInt32($0) }, bytes: [UInt8](repeating: 1, count: 100)))
        var refs: [PageRef] = []
        for index in 1...400 {
            let ref = PageRef(offset: UInt64(index) * 8192, length: 100, checksum: UInt64(index))
            cache.insert([fenced, small, run][index % 3], for: ref, cost: 4096)
            refs.append(ref)
        }
        // Replacing a page by one with fences, and by one without, at the same offset.
        let last = refs[refs.count - 1]
        cache.insert(fenced, for: PageRef(offset: last.offset, length: 100, checksum: 10_000), cost: 4096)
        cache.insert(small, for: PageRef(offset: last.offset, length: 100, checksum: 10_001), cost: 4096)
        var cachedWithFences = 0
        for (index, ref) in refs.enumerated() where cache.node(for: ref) != nil && (index + 1) % 3 == 0 {
            cachedWithFences += 1
        }
        #expect(cachedWithFences > 0)
        #expect(cache.fenceBlocksInUse == cachedWithFences)
        let held = (1...5).map { PageRef(offset: UInt64(1_000 + $0) * 8192, length: 100, checksum: 1) }
        cache.hold(held.map { (ref: $0, node: fenced) }, cost: { _ in 4096 })
        #expect(cache.fenceBlocksInUse == cachedWithFences + 5)
        for ref in held { cache.release(ref) }
        #expect(cache.fenceBlocksInUse == cachedWithFences)
    }
}
