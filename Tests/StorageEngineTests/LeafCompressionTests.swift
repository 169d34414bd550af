import Testing
import TestSupport
@testable import StorageEngine

@Suite("Leaf compression")
struct LeafCompressionTests {
    static func leaf(_ values: [[UInt8]]) -> Leaf {
        var leaf = Leaf()
        for (key, value) in values.enumerated() {
            value.withUnsafeBytes { leaf.append(key: UInt64(key), value: $0, overflow: false) }
        }
        return leaf
    }

    static func randomBytes(_ count: Int, _ random: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    @Test("a leaf that did not compress is stored raw without trying until it grows by a quarter")
    func hintRule() throws {
        var random = SeededGenerator(seed: 3)
        // Random bytes: tried, stored raw, and the size remembered.
        var leaf = Self.leaf((0..<20).map { _ in Self.randomBytes(100, &random) })
        let size = NodeCodec.encode(leaf).count
        var raws = [NodeCodec.encode(leaf)]
        let first = LeafCompression.page(for: leaf)
        #expect(!PageCodec.isCompressed(first.page))
        #expect(first.incompressibleSize == UInt32(size))

        // Zeros that would save more than an eighth, within a quarter's growth: not tried.
        leaf.incompressibleSize = first.incompressibleSize
        let zeros = [UInt8](repeating: 0, count: 100)
        for key in 20..<24 { zeros.withUnsafeBytes { leaf.append(key: UInt64(key), value: $0, overflow: false) } }
        #expect(NodeCodec.encode(leaf).count < size + size / 4)
        raws.append(NodeCodec.encode(leaf))
        let skipped = LeafCompression.page(for: leaf)
        #expect(!PageCodec.isCompressed(skipped.page))
        #expect(PageCodec.isCompressed(PageCodec.encode(kind: .leaf, raw: NodeCodec.encode(leaf))), "the zeros alone make it worth compressing")
        #expect(skipped.incompressibleSize == first.incompressibleSize, "growth is measured from the last real try")

        // Past a quarter: tried again, compressed, and the hint cleared.
        for key in 24..<28 { zeros.withUnsafeBytes { leaf.append(key: UInt64(key), value: $0, overflow: false) } }
        raws.append(NodeCodec.encode(leaf))
        let retried = LeafCompression.page(for: leaf)
        #expect(PageCodec.isCompressed(retried.page))
        #expect(retried.incompressibleSize == 0)

        // Whatever was chosen, the page decodes to the leaf.
        for (encoded, expected) in zip([first, skipped, retried], raws) {
            var page = encoded.page
            let ref = PageCodec.seal(&page, at: 4096)
            let (kind, raw) = try page.withUnsafeBytes { try PageCodec.decode($0, ref: ref) }
            #expect(kind == .leaf)
            #expect(raw == expected)
        }
    }

    @Test("the hint follows a leaf from one commit to the next, and every row reads back")
    func hintAcrossCommits() throws {
        let database = try Database.open(file: InMemoryFile())
        var random = SeededGenerator(seed: 5)
        var expected: [UInt64: [UInt8]] = [:]
        func commit(_ values: [[UInt8]]) throws {
            try database.write { transaction in
                let tree = transaction.createTable("t").rowTree
                for value in values {
                    let key = UInt64(expected.count + 1)
                    try tree.append(key, value)
                    expected[key] = value
                }
            }
        }
        func rootPageIsCompressed() throws -> Bool {
            let snapshot = try database.snapshot()
            let ref = snapshot.catalog.tables["t"]!.rows
            var stored = [UInt8](repeating: 0, count: Int(ref.length))
            try stored.withUnsafeMutableBytes { try snapshot.store.file.read(into: $0, at: ref.offset) }
            #expect(stored[8] == PageKind.leaf.rawValue, "the table is one leaf")
            return PageCodec.isCompressed(stored)
        }

        try commit((0..<20).map { _ in Self.randomBytes(100, &random) })
        #expect(try !rootPageIsCompressed())
        // A fifth more, all zeros: worth compressing, but within a quarter of the failed try.
        try commit((0..<4).map { _ in [UInt8](repeating: 0, count: 100) })
        #expect(try !rootPageIsCompressed(), "the leaf's hint came through the page cache into the next transaction")
        try commit((0..<4).map { _ in [UInt8](repeating: 0, count: 100) })
        #expect(try rootPageIsCompressed(), "grown past a quarter, the leaf is tried again")

        let snapshot = try database.snapshot()
        let tree = TreeReader(store: snapshot.store, root: snapshot.catalog.tables["t"]!.rows)
        var found: [UInt64: [UInt8]] = [:]
        try tree.scan { key, value in
            found[key] = Array(value)
            return true
        }
        #expect(found == expected)
    }
}
