import Testing
import TestSupport
@testable import StorageEngine

@Suite("Pages and the page cache")
struct PageTests {
    @Test("a page is compressed when that saves at least an eighth, stored raw otherwise, and decodes exactly")
    func compressionDecision() throws {
        var random = SeededGenerator(seed: 3)
        let compressible = [UInt8](repeating: 42, count: 16_384)
        let noise = (0..<16_384).map { _ in UInt8.random(in: 0...255, using: &random) }
        for (raw, expectCompressed) in [(compressible, true), (noise, false)] {
            var page = PageCodec.encode(kind: .leaf, raw: raw)
            #expect((page[9] & 1 == 1) == expectCompressed)
            if expectCompressed { #expect(page.count < raw.count / 8) } else { #expect(page.count == raw.count + PageCodec.headerSize) }
            let ref = PageCodec.seal(&page, at: 65_536)
            try page.withUnsafeBytes { (bytes) throws in
                let (kind, decoded) = try PageCodec.decode(bytes, ref: ref)
                #expect(kind == .leaf)
                #expect(decoded == raw)
            }
        }
    }

    @Test("the most compressible page decodes; one declaring more than LZ4 can expand its bytes to is refused before any buffer is made")
    func rawLengthBound() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var page = PageCodec.encode(kind: .overflow, raw: zeros)
        let ref = PageCodec.seal(&page, at: 65_536)
        #expect(try page.withUnsafeBytes { try PageCodec.decode($0, ref: ref).1 } == zeros, "a megabyte of zeros, \(page.count) bytes stored")
        // The same page declaring a raw length of 1 GiB, its checksums made to match.
        var inflated = PageCodec.encode(kind: .overflow, raw: zeros)
        inflated.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(1 << 30).littleEndian, toByteOffset: 12, as: UInt32.self) }
        let inflatedRef = PageCodec.seal(&inflated, at: 65_536)
        let error = #expect(throws: StorageError.self) { try inflated.withUnsafeBytes { try PageCodec.decode($0, ref: inflatedRef) } }
        #expect(error?.message.contains("implausible raw length") == true, "\(String(describing: error))")
    }

    @Test("compression states reused from page to page, on several threads at once, carry nothing of one page into the next")
    func reusedCompressionStates() async throws {
        // Pages that share long runs with the pages compressed before them: a match reaching
        // into an earlier page would decode to wrong bytes, or fail to decode at all.
        func pages(seed: UInt64) -> [[UInt8]] {
            var random = SeededGenerator(seed: seed)
            let phrases = (0..<8).map { _ in (0..<48).map { _ in UInt8.random(in: 97...122, using: &random) } }
            return (0..<200).map { page in
                var raw: [UInt8] = []
                while raw.count < 1_000 + page * 37 {
                    raw += phrases[Int.random(in: 0..<phrases.count, using: &random)]
                    raw.append(UInt8(truncatingIfNeeded: page))
                }
                return raw
            }
        }
        func roundTrips(_ pages: [[UInt8]]) throws -> Int {
            var compressed = 0
            for (index, raw) in pages.enumerated() {
                var page = PageCodec.encode(kind: .leaf, raw: raw)
                if page[9] & 1 == 1 { compressed += 1 }
                let ref = PageCodec.seal(&page, at: 65_536 + UInt64(index) * 8_192)
                let decoded = try page.withUnsafeBytes { try PageCodec.decode($0, ref: ref).1 }
                guard decoded == raw else { return -1 }
            }
            return compressed
        }
        let compressed = try await withThrowingTaskGroup(of: Int.self) { group in
            for seed in 0..<4 as Range<UInt64> { group.addTask { try roundTrips(pages(seed: seed)) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(compressed == [200, 200, 200, 200], "every page compresses and decodes to its own bytes")
    }

    @Test("every byte of a stored page is covered: flipping any one is caught")
    func everyByteChecked() throws {
        var page = PageCodec.encode(kind: .leaf, raw: Array(repeating: 1, count: 500) + Array(0..<200))
        let ref = PageCodec.seal(&page, at: 8192)
        for index in page.indices {
            var damaged = page
            damaged[index] ^= 0x40
            _ = damaged.withUnsafeBytes { bytes in
                #expect(throws: StorageError.self, "byte \(index)") { try PageCodec.decode(bytes, ref: ref) }
            }
        }
    }

    /// Counts the writes that reach an in-memory file: each write, and of a gathering write
    /// (which it has its own of) the parts it was given as well.
    final class CountingFile: FileIO, @unchecked Sendable {
        let inner = InMemoryFile()
        var writes: [(offset: UInt64, count: Int)] = []
        var gathered: [(offset: UInt64, parts: Int)] = []
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws { try inner.read(into: buffer, at: offset) }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
            writes.append((offset, bytes.count))
            try inner.write(bytes, at: offset)
        }
        func write(gathering parts: [UnsafeRawBufferPointer], at offset: UInt64) throws {
            gathered.append((offset, parts.count))
            writes.append((offset, parts.reduce(0) { $0 + $1.count }))
            var position = offset
            for part in parts {
                try inner.write(part, at: position)
                position += UInt64(part.count)
            }
        }
        func sync() throws { try inner.sync() }
        func size() throws -> UInt64 { try inner.size() }
        func truncate(to length: UInt64) throws { try inner.truncate(to: length) }
        func prepareForWriting(_ range: Range<UInt64>) throws { try inner.prepareForWriting(range) }
    }

    @Test("pages written out of order but adjacent go out in one write; others land where they belong")
    func pageWriterMerges() throws {
        let file = CountingFile()
        let writer = PageWriter(file: file)
        // A run, then a page two slots on, then the page that fills the gap (a commit writes
        // its free list before its commit record, which sits before it), then one far away.
        try writer.write([1, 1], at: 100, paddedTo: 4)
        try writer.write([3, 3, 3, 3], at: 108, paddedTo: 4)
        try writer.write([2], at: 104, paddedTo: 4)
        try writer.write([9], at: 400, paddedTo: 2)
        try writer.write([0], at: 90, paddedTo: 2)
        try writer.flush()
        #expect(file.writes.map(\.offset) == [100, 90, 400])
        #expect(file.writes.map(\.count) == [12, 2, 2])
        var read = [UInt8](repeating: 0xEE, count: 12)
        try read.withUnsafeMutableBytes { try file.read(into: $0, at: 100) }
        #expect(read == [1, 1, 0, 0, 2, 0, 0, 0, 3, 3, 3, 3])
        // Nothing is left behind for the next commit.
        file.writes.removeAll()
        try writer.flush()
        #expect(file.writes.isEmpty)
        // Writes kept aside are bounded: past 64 KiB of them the run is issued at once.
        for index in 0..<40 {
            try writer.write([UInt8](repeating: 7, count: 4096), at: 1_000_000 + UInt64(index) * 8192, paddedTo: 4096)
        }
        #expect(file.writes.count > 0, "the run and the writes kept aside do not grow without bound")
        try writer.flush()
        for index in 0..<40 {
            var page = [UInt8](repeating: 0, count: 4096)
            try page.withUnsafeMutableBytes { try file.read(into: $0, at: 1_000_000 + UInt64(index) * 8192) }
            #expect(page == [UInt8](repeating: 7, count: 4096))
        }
    }

    @Test("a run of pages reaches the file's own gathering write, not the default that joins the pages into one buffer")
    func pageWriterGathers() throws {
        let file = CountingFile()
        let writer = PageWriter(file: file)
        try writer.write([1, 1], at: 64, paddedTo: 4)
        try writer.write([2, 2, 2, 2], at: 68, paddedTo: 4)
        try writer.write([3], at: 72, paddedTo: 1)
        try writer.flush()
        // Two pages, the first one's padding, and the third page: four parts, as they were.
        #expect(file.gathered.map(\.offset) == [64])
        #expect(file.gathered.map(\.parts) == [4])
        var read = [UInt8](repeating: 0xEE, count: 9)
        try read.withUnsafeMutableBytes { try file.read(into: $0, at: 64) }
        #expect(read == [1, 1, 0, 0, 2, 2, 2, 2, 3])
    }

    @Test("the cache's offset table agrees with a dictionary through inserts, replacements and removals")
    func offsetTable() {
        var random = SeededGenerator(seed: 77)
        let table = OffsetTable()
        var expected: [UInt64: Int] = [:]
        // Offsets from a small range collide and form long runs; page-aligned ones are the usual.
        let ranges: [ClosedRange<UInt64>] = [1...300, 4096...(4096 * 2_000)]
        for range in ranges {
            for step in 0..<40_000 {
                let offset = UInt64.random(in: range, using: &random)
                if UInt64.random(in: 0..<3, using: &random) == 0 {
                    table.remove(offset)
                    expected[offset] = nil
                } else {
                    table.set(step, for: offset)
                    expected[offset] = step
                }
                if step % 1_000 == 0 {
                    for probe in range.lowerBound...(range.lowerBound + 400) {
                        #expect(table.slot(for: probe) == expected[probe], "offset \(probe)")
                    }
                }
            }
            #expect(table.count == expected.count)
            for (offset, slot) in expected { #expect(table.slot(for: offset) == slot) }
            for offset in expected.keys { table.remove(offset) }
            expected = [:]
            #expect(table.count == 0 && table.slot(for: range.lowerBound) == nil)
        }
    }

    @Test("the cache stays within its budget and keeps the pages in use")
    func cacheBound() throws {
        let cache = PageCache(capacityBytes: 64 * 1024)
        let node = Node.leaf(Leaf(keys: [1], ends: [4], bytes: [1, 2, 3, 4]))
        for index in 1...1000 {
            cache.insert(node, for: PageRef(offset: UInt64(index) * 8192, length: 100, checksum: UInt64(index)), cost: 4096)
            // Page 1 is read between every insert, so CLOCK keeps it.
            _ = cache.node(for: PageRef(offset: 8192, length: 100, checksum: 1))
            #expect(cache.statistics.usedBytes <= 64 * 1024)
        }
        #expect(cache.node(for: PageRef(offset: 8192, length: 100, checksum: 1)) != nil)
        #expect(cache.node(for: PageRef(offset: 8192 * 2, length: 100, checksum: 2)) == nil)
        // A page written later at the same offset replaces, never aliases, the old one.
        #expect(cache.node(for: PageRef(offset: 8192, length: 100, checksum: 99)) == nil)
    }

    @Test("a lookup through the cache finds what the leaves hold, copies short values, and misses what was evicted or replaced")
    func cacheLookups() throws {
        let cache = PageCache(capacityBytes: 64 * 1024)
        func leaf(_ keys: [UInt64], valueLength: (UInt64) -> Int) -> Node {
            var ends: [UInt32] = []
            var bytes: [UInt8] = []
            for key in keys {
                bytes += (0..<valueLength(key)).map { UInt8(truncatingIfNeeded: key &+ UInt64($0)) }
                ends.append(UInt32(bytes.count))
            }
            return .leaf(Leaf(keys: keys, ends: ends, bytes: bytes))
        }
        // A root over two leaves: keys 0, 3, 6, ... below 300 on the left, the rest on the right;
        // every tenth value longer than the copy buffer.
        let length: (UInt64) -> Int = { $0 % 30 == 0 ? 300 : Int($0 % 7) }
        let left = PageRef(offset: 8192, length: 100, checksum: 1)
        let right = PageRef(offset: 16384, length: 100, checksum: 2)
        let root = PageRef(offset: 24576, length: 100, checksum: 3)
        cache.insert(leaf(Array(stride(from: 0, to: 300, by: 3)), valueLength: length), for: left, cost: 1000)
        cache.insert(leaf(Array(stride(from: 300, to: 600, by: 3)), valueLength: length), for: right, cost: 1000)
        cache.insert(.branch(Branch(keys: [300], children: [.stored(left), .stored(right)])), for: root, cost: 1000)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
        defer { buffer.deallocate() }
        for key in UInt64(0)..<610 {
            let expected = key < 600 && key % 3 == 0 ? (0..<length(key)).map { UInt8(truncatingIfNeeded: key &+ UInt64($0)) } : nil
            switch cache.locate(key, from: root, copyingInto: buffer) {
            case .copied(let count):
                #expect(Array(buffer[..<count]) == expected, "key \(key)")
                #expect(count <= buffer.count)
            case .found(let value):
                #expect(expected != nil && expected!.count > buffer.count, "key \(key) handed out in place")
                let bytes = try value.withBytes(store: PageStore(file: InMemoryFile(), cache: cache)) { Array($0) }
                #expect(bytes == expected, "key \(key)")
            case .absent:
                #expect(expected == nil, "key \(key)")
            case .uncached(let ref):
                Issue.record("key \(key): \(ref) is cached")
            }
        }
        // A page written later at the right leaf's offset replaces it: the old reference misses.
        let rewritten = PageRef(offset: 16384, length: 100, checksum: 9)
        cache.insert(leaf([300, 301], valueLength: { _ in 1 }), for: rewritten, cost: 1000)
        guard case .uncached(let missing) = cache.locate(303, from: root, copyingInto: buffer) else {
            Issue.record("a lookup through a replaced page must miss")
            return
        }
        #expect(missing == right)
        guard case .copied(1) = cache.locate(301, from: rewritten, copyingInto: buffer) else {
            Issue.record("the page written in its place is found")
            return
        }
        // Filling the cache evicts the tree, which lookups then report as not cached.
        for index in 10...200 {
            cache.insert(leaf([1], valueLength: { _ in 1 }), for: PageRef(offset: UInt64(index) * 8192, length: 100, checksum: UInt64(index)), cost: 4096)
        }
        guard case .uncached = cache.locate(3, from: root, copyingInto: buffer) else {
            Issue.record("an evicted tree is not found in the cache")
            return
        }
    }

    @Test("a leaf directory learns from lookups the leaves whose keys are a run, grows with the keys up to its cap, and follows a leaf the cache reads again")
    func leafDirectory() {
        let cache = PageCache(capacityBytes: 1 << 20)
        func leaf(_ keys: [UInt64], adding extra: UInt8 = 0) -> Node {
            .leaf(Leaf(keys: keys, ends: keys.indices.map { UInt32($0 + 1) }, bytes: keys.map { UInt8(truncatingIfNeeded: $0) &+ extra }))
        }
        let run = PageRef(offset: 8192, length: 100, checksum: 1)
        let gapped = PageRef(offset: 16384, length: 100, checksum: 2)
        let root = PageRef(offset: 24576, length: 100, checksum: 3)
        let firstRead = leaf(Array(0..<100))
        cache.insert(firstRead, for: run, cost: 1000)
        cache.insert(leaf(Array(stride(from: 100, to: 300, by: 2))), for: gapped, cost: 1000)
        cache.insert(.branch(Branch(keys: [100], children: [.stored(run), .stored(gapped)])), for: root, cost: 1000)

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { buffer.deallocate() }
        let directory = LeafDirectory()
        func value(_ key: UInt64, from root: PageRef) -> UInt8? {
            directory.prefetch(key)
            guard case .copied(1) = cache.locate(key, from: root, copyingInto: buffer, noting: directory) else { return nil }
            return buffer[0]
        }
        #expect(value(150, from: root) == 150)
        #expect(directory.count == 1 && directory.hint(for: 150).keyCount == 0, "a leaf whose keys have gaps is not recorded")
        #expect(value(42, from: root) == 42)
        // A hundred keys to a leaf: an entry covers 64 of them, at most a leaf's.
        #expect(directory.shift == 6 && directory.count == 1)
        let hint = directory.hint(for: 42)
        #expect(hint.ends != nil && hint.bytes != nil)
        #expect(hint.runStart == 0 && hint.keyCount == 100 && hint.byteCount == 100)

        // The run read again: its arrays are new (the first read's are still alive, so they
        // cannot be reused). A lookup after a prefetch through the old hint reads the new leaf,
        // and moves the hint.
        withExtendedLifetime(firstRead) {
            cache.insert(leaf(Array(0..<100), adding: 1), for: run, cost: 1000)
            #expect(value(42, from: root) == 43)
            let moved = directory.hint(for: 42)
            #expect(moved.ends != hint.ends && moved.bytes != hint.bytes && moved.keyCount == 100)
        }

        // A key further on grows the entries to cover it, dropping what they held.
        let farther = PageRef(offset: 32768, length: 100, checksum: 4)
        cache.insert(leaf(Array(10_000..<10_100)), for: farther, cost: 1000)
        #expect(value(10_050, from: farther) == UInt8(truncatingIfNeeded: 10_050))
        #expect(directory.count == 256 && directory.hint(for: 42).keyCount == 0)
        #expect(directory.hint(for: 10_050).runStart == 10_000)
        #expect(directory.hint(for: 9_936).keyCount == 0, "only the entry of the key looked up is recorded")
        // Keys past the cap share entries; a hint is used only inside its own run.
        let last = PageRef(offset: 40960, length: 100, checksum: 5)
        let top = UInt64(UInt32.max) - 99
        cache.insert(leaf(Array(top...UInt64(UInt32.max))), for: last, cost: 1000)
        #expect(value(top + 7, from: last) == UInt8(truncatingIfNeeded: top + 7))
        #expect(directory.count == LeafDirectory.maximumCount)
        #expect(directory.hint(for: top + 7).runStart == UInt32(top))
        for key in [0, 10_050, top - 1, UInt64(UInt32.max) + 1, .max] { directory.prefetch(key) }
    }

    @Test("a leaf directory answers a lookup through its hint only in the tree and the cache it was recorded in")
    func leafDirectoryReadsThrough() {
        let cache = PageCache(capacityBytes: 64 << 10)
        func leaf(_ keys: Range<UInt64>, adding extra: UInt8) -> Node {
            .leaf(Leaf(keys: Array(keys), ends: keys.indices.map { UInt32($0 - keys.lowerBound + 1) }, bytes: keys.map { UInt8(truncatingIfNeeded: $0) &+ extra }))
        }
        let (left, right) = (PageRef(offset: 8192, length: 100, checksum: 1), PageRef(offset: 16384, length: 100, checksum: 2))
        let root = PageRef(offset: 24576, length: 100, checksum: 3)
        let firstLeft = leaf(0..<100, adding: 0)
        cache.insert(firstLeft, for: left, cost: 1000)
        cache.insert(leaf(100..<200, adding: 0), for: right, cost: 1000)
        cache.insert(.branch(Branch(keys: [100], children: [.stored(left), .stored(right)])), for: root, cost: 1000)

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { buffer.deallocate() }
        let directory = LeafDirectory()
        func value(_ key: UInt64, from root: PageRef) -> UInt8? {
            guard case .copied(1) = cache.locate(key, from: root, copyingInto: buffer, noting: directory) else { return nil }
            return buffer[0]
        }
        #expect(value(42, from: root) == 42 && value(42, from: root) == 42)
        #expect(cache.directoryReads == 0, "a directory told no tree only prefetches")

        directory.enter(tree: root)
        #expect(value(42, from: root) == 42, "the first lookup in the tree descends and records the leaf")
        #expect(value(42, from: root) == 42 && value(42, from: root) == 42)
        #expect(cache.directoryReads == 2, "the key's entry, recorded, is read through")
        #expect(value(150, from: root) == 150 && cache.directoryReads == 2, "another entry's key descends")
        #expect(value(150, from: root) == 150 && cache.directoryReads == 3)
        // The entry of keys 64...127 straddles the two leaves and holds the one last found, the
        // left; a key of the right is read through the neighbour on its side, which holds that.
        #expect(value(98, from: root) == 98 && cache.directoryReads == 3)
        #expect(value(110, from: root) == 110 && cache.directoryReads == 4, "read through the hint of keys 128...191")

        // Another tree whose left leaf has other values, while the first tree's stays cached
        // and its hint would still point at live memory: its hints are not read.
        let newLeft = PageRef(offset: 32768, length: 100, checksum: 4)
        let newRoot = PageRef(offset: 40960, length: 100, checksum: 5)
        cache.insert(leaf(0..<100, adding: 1), for: newLeft, cost: 1000)
        cache.insert(.branch(Branch(keys: [100], children: [.stored(newLeft), .stored(right)])), for: newRoot, cost: 1000)
        directory.enter(tree: newRoot)
        #expect(value(42, from: newRoot) == 43, "a hint from another tree is not read through")
        #expect(value(42, from: newRoot) == 43)
        #expect(cache.directoryReads == 5)

        // A node replaced in the cache (a page written again where it was) ends the era.
        withExtendedLifetime(firstLeft) {
            cache.insert(leaf(0..<100, adding: 2), for: newLeft, cost: 1000)
            #expect(value(42, from: newRoot) == 44, "a hint into a replaced leaf is not read through")
            #expect(cache.directoryReads == 5)
        }

        // Evicting the tree's nodes ends the era too: the lookup finds the leaf gone.
        #expect(value(42, from: newRoot) == 44 && cache.directoryReads == 6)
        for index in 10...100 {
            cache.insert(leaf(0..<1, adding: 0), for: PageRef(offset: UInt64(index) * 8192, length: 100, checksum: UInt64(index)), cost: 4096)
        }
        guard case .uncached = cache.locate(42, from: newRoot, copyingInto: buffer, noting: directory) else {
            Issue.record("a hint into an evicted leaf is not read through")
            return
        }
        #expect(cache.directoryReads == 6)

        // And so does a held node released (a transaction's, see `PageStore.holdInMemory`).
        let (heldLeaf, heldRoot) = (PageRef(offset: 1 << 20, length: 100, checksum: 6), PageRef(offset: 2 << 20, length: 100, checksum: 7))
        cache.hold([
            (ref: heldLeaf, node: leaf(0..<100, adding: 3)),
            (ref: heldRoot, node: .branch(Branch(keys: [100], children: [.stored(heldLeaf), .stored(right)]))),
        ], cost: { _ in 1000 })
        directory.enter(tree: heldRoot)
        #expect(value(42, from: heldRoot) == 45 && value(42, from: heldRoot) == 45 && cache.directoryReads == 7)
        cache.release(heldLeaf)
        guard case .uncached = cache.locate(42, from: heldRoot, copyingInto: buffer, noting: directory) else {
            Issue.record("a hint into a released leaf is not read through")
            return
        }
        #expect(cache.directoryReads == 7)
    }

    @Test("a bulk load of compressible rows takes a fraction of its raw size on disk")
    func rowsAreCompressed() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        var rawBytes = 0
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in UInt64(1)...20_000 {
                let row: [RowValue] = [.string("user-\(key % 100)@example.com"), .int(Int64(key % 7)), .bool(key % 2 == 0)]
                rawBytes += RowCodec.encode(row).count
                try table.insert(row)
            }
        }
        #expect(try file.size() < UInt64(rawBytes) / 2)
    }
}

private extension OffsetTable {
    /// Maps `offset` to `slot`, with nothing else known of the node.
    func set(_ slot: Int, for offset: UInt64) {
        var summary = NodeSummary()
        summary.offset = offset
        summary.slot = Int32(slot)
        set(summary)
    }
}
