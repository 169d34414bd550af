import Testing
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

    @Test("a bulk load of compressible rows takes a fraction of its raw size on disk")
    func rowsAreCompressed() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        var rawBytes = 0
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in UInt64(1)...20_000 {
                let row: [Value] = [.string("user-\(key % 100)@example.com"), .int(Int64(key % 7)), .bool(key % 2 == 0)]
                rawBytes += RowCodec.encode(row).count
                try table.insert(row)
            }
        }
        #expect(try file.size() < UInt64(rawBytes) / 2)
    }
}
