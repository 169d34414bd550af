import Testing
import TestSupport
@testable import StorageEngine

@Suite("Nodes held in memory")
struct InMemoryNodesTests {
    /// Every reference reachable from `root`, and whether each is synthetic.
    static func references(from root: PageRef, in store: PageStore) throws -> [PageRef] {
        guard !root.isNull else { return [] }
        var found = [root]
        if case .branch(let branch) = try store.node(root) {
            for child in branch.children {
                guard case .stored(let ref) = child else { Issue.record("a stored branch has a dirty child"); continue }
                found += try references(from: ref, in: store)
            }
        }
        return found
    }

    static func check(_ root: PageRef, in store: PageStore, against model: [UInt64: [UInt8]], random: inout SeededGenerator) throws {
        let tree = TreeReader(store: store, root: root)
        var scanned: [UInt64: [UInt8]] = [:]
        try tree.scan { key, value in
            scanned[key] = Array(value)
            return true
        }
        #expect(scanned == model)
        // Lookups go through the cache's locate path, which descends by reference.
        for _ in 0..<200 {
            let key = UInt64.random(in: 0..<3000, using: &random)
            #expect(try tree.withValue(forKey: key) { Array($0) } == model[key], "key \(key)")
        }
    }

    @Test("trees flushed into memory read back through every path, commit after commit, whatever the cache's size")
    func rounds() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        // A cache far smaller than the nodes held: held nodes must not be evicted.
        let store = PageStore(file: InMemoryFile(), cache: PageCache(capacityBytes: 4096))
        // A stored tree read every round, so that the cache keeps evicting around the held nodes.
        let storedSpace = TransactionSpace(store: store, freeSpace: FreeSpace(end: FileHeader.dataStart))
        let storedTree = MutableTree(root: .null, space: storedSpace)
        for key in UInt64(0)..<5000 { try storedTree.append(key, [UInt8](repeating: 7, count: 30)) }
        _ = storedTree.prepareFlush()
        let storedRoot = try storedTree.flush()
        try storedSpace.flush()
        var root = PageRef.null
        var model: [UInt64: [UInt8]] = [:]
        for round in 0..<40 {
            let space = TransactionSpace(store: store, freeSpace: FreeSpace(end: FileHeader.dataStart))
            let tree = MutableTree(root: root, space: space)
            for _ in 0..<Int.random(in: 1...200, using: &random) {
                let key = UInt64.random(in: 0..<3000, using: &random)
                if Int.random(in: 0..<4, using: &random) == 0 {
                    try tree.delete(key)
                    model[key] = nil
                } else {
                    let value = [UInt8](repeating: UInt8(round), count: Int.random(in: 10...200, using: &random))
                    try tree.put(key, value)
                    model[key] = value
                }
            }
            root = tree.flushToMemory()
            #expect(space.freed.isEmpty, "no page of the file was used, so none is freed")
            let reachable = Set(try Self.references(from: root, in: store).map(\.offset))
            #expect(reachable.allSatisfy { $0 >= PageStore.syntheticBase })
            // What the transaction stopped using is unreachable now, and can go.
            #expect(space.freedInMemory.allSatisfy { !reachable.contains($0.offset) }, "round \(round) (seed \(seed))")
            for ref in space.freedInMemory { store.releaseFromMemory(ref) }
            try Self.check(root, in: store, against: model, random: &random)
            var storedCount = 0
            try TreeReader(store: store, root: storedRoot).scan { _, _ in storedCount += 1; return true }
            #expect(storedCount == 5000)
        }
        #expect(store.cache.heldBytes > 4096)
    }

    @Test("a checkpoint writes every node held in memory to the file, and a fresh cache reads the tree from it")
    func checkpoint() throws {
        var random = SeededGenerator(seed: testSeed())
        let file = InMemoryFile()
        let store = PageStore(file: file, cache: PageCache())
        var model: [UInt64: [UInt8]] = [:]
        // A stored base, as the last checkpoint would have left it, then commits held in memory.
        let base = TransactionSpace(store: store, freeSpace: FreeSpace(end: FileHeader.dataStart))
        let first = MutableTree(root: .null, space: base)
        for key in UInt64(0)..<2000 {
            try first.append(key, [UInt8](repeating: 1, count: 40))
            model[key] = [UInt8](repeating: 1, count: 40)
        }
        var root = try first.flush()
        try base.flush()
        var freeSpace = base.freeSpace
        for round in 0..<10 {
            let space = TransactionSpace(store: store, freeSpace: freeSpace)
            let tree = MutableTree(root: root, space: space)
            for _ in 0..<50 {
                let key = UInt64.random(in: 0..<3000, using: &random)
                let value = [UInt8](repeating: UInt8(round + 2), count: 40)
                try tree.put(key, value)
                model[key] = value
            }
            root = tree.flushToMemory()
            freeSpace = space.freeSpace
        }
        #expect(try Self.references(from: root, in: store).contains { $0.isSynthetic })

        let space = TransactionSpace(store: store, freeSpace: freeSpace)
        let tree = MutableTree(root: root, space: space)
        // The checkpoint's own transaction changed a path first: held nodes beside it must be
        // found under the branches that path made dirty.
        try tree.put(2999, [9])
        model[2999] = [9]
        try tree.makeHeldNodesDirty()
        _ = tree.prepareFlush()
        root = try tree.flush()
        try space.flush()
        let fresh = PageStore(file: file, cache: PageCache())
        #expect(try Self.references(from: root, in: fresh).allSatisfy { !$0.isSynthetic })
        try Self.check(root, in: fresh, against: model, random: &random)
    }

    @Test("a released node that a tree still reaches is reported, not read as something else")
    func releasedNode() throws {
        let store = PageStore(file: InMemoryFile(), cache: PageCache())
        let space = TransactionSpace(store: store, freeSpace: FreeSpace(end: FileHeader.dataStart))
        let tree = MutableTree(root: .null, space: space)
        try tree.put(1, [1])
        let root = tree.flushToMemory()
        #expect(try TreeReader(store: store, root: root).withValue(forKey: 1) { Array($0) } == [1])
        store.releaseFromMemory(root)
        #expect(throws: StorageError.self) { try TreeReader(store: store, root: root).withValue(forKey: 1) { Array($0) } }
    }

    @Test("appends after the right edge's largest keys were deleted stay in key order, whatever the right edge's leaf holds")
    func appendsAfterDeletesAtTheRightEdge() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let store = PageStore(file: InMemoryFile(), cache: PageCache(capacityBytes: 1 << 20))
        var root = PageRef.null
        var model: [UInt64: [UInt8]] = [:]
        for round in 0..<60 {
            let space = TransactionSpace(store: store, freeSpace: FreeSpace(end: FileHeader.dataStart))
            let tree = MutableTree(root: root, space: space)
            // Delete a run of the largest keys, as many as a few leaves hold or all of them.
            for key in model.keys.sorted().suffix(Int.random(in: 0...600, using: &random)) {
                _ = try tree.delete(key)
                model[key] = nil
            }
            // Then append: mostly past the largest key left, sometimes below it, and sometimes
            // just past the largest key deleted.
            var next = (model.keys.max() ?? 0) + UInt64.random(in: 1...3, using: &random)
            for _ in 0..<Int.random(in: 0...400, using: &random) {
                let key = Int.random(in: 0..<10, using: &random) == 0 ? UInt64.random(in: 0...next, using: &random) : next
                let value = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: Int.random(in: 10...60, using: &random))
                try tree.append(key, value)
                model[key] = value
                next = max(next, key) + 1
            }
            root = tree.flushToMemory()
            var scanned: [UInt64] = []
            try TreeReader(store: store, root: root).scan { key, value in
                scanned.append(key)
                #expect(Array(value) == model[key], "round \(round), key \(key) (seed \(seed))")
                return true
            }
            #expect(scanned == model.keys.sorted(), "round \(round): every key, once, in order (seed \(seed))")
            for key in model.keys.shuffled(using: &random).prefix(20) {
                #expect(try TreeReader(store: store, root: root).withValue(forKey: key) { Array($0) } == model[key])
            }
        }
    }
}
