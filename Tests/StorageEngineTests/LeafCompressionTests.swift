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

    /// The layout of each leaf of table "t" (a leaf, or a branch over leaves) as stored, and
    /// whether its page is compressed.
    static func storedLeaves(of database: Database) throws -> [(layout: NodeCodec.Layout, compressed: Bool)] {
        let snapshot = try database.snapshot()
        let root = snapshot.catalog.tables["t"]!.rows
        let refs: [PageRef] = switch try snapshot.store.node(root) {
        case .leaf: [root]
        case .branch(let branch): branch.children.map { child in
            guard case .stored(let ref) = child else { return .null }
            return ref
        }
        }
        return try refs.map { ref in
            var stored = [UInt8](repeating: 0, count: Int(ref.length))
            try stored.withUnsafeMutableBytes { try snapshot.store.file.read(into: $0, at: ref.offset) }
            let raw = try stored.withUnsafeBytes { try PageCodec.decode($0, ref: ref).1 }
            return (try NodeCodec.layout(ofLeaf: raw), PageCodec.isCompressed(stored))
        }
    }

    /// Every row of table "t" in `snapshot`, by key.
    static func rows(of snapshot: Snapshot) throws -> [UInt64: [UInt8]] {
        let tree = TreeReader(store: snapshot.store, root: snapshot.catalog.tables["t"]!.rows)
        var found: [UInt64: [UInt8]] = [:]
        try tree.scan { key, value in
            found[key] = Array(value)
            return true
        }
        return found
    }

    /// A row as the row encoder writes it, which a leaf stores by column when it is not hot.
    static func row(_ key: UInt64, _ version: Int = 0) -> [UInt8] {
        RowCodec.encode([.int(Int64(key)), .string("name \(key % 10)"), .int(Int64(version))])
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

        // Commits to another table in between, so that the leaf is not rewritten hot (stored
        // whole and raw without trying; see `hotLeaves`).
        var spacerKey: UInt64 = 0
        func pause() throws {
            for _ in 0..<LeafCompression.hotVersions {
                spacerKey += 1
                try database.write { [spacerKey] in try $0.createTable("spacer").rowTree.append(spacerKey, [1]) }
            }
        }

        try commit((0..<20).map { _ in Self.randomBytes(100, &random) })
        #expect(try !rootPageIsCompressed())
        try pause()
        // A fifth more, all zeros: worth compressing, but within a quarter of the failed try.
        try commit((0..<4).map { _ in [UInt8](repeating: 0, count: 100) })
        #expect(try !rootPageIsCompressed(), "the leaf's hint came through the page cache into the next transaction")
        try pause()
        try commit((0..<4).map { _ in [UInt8](repeating: 0, count: 100) })
        #expect(try rootPageIsCompressed(), "grown past a quarter, the leaf is tried again")

        #expect(try Self.rows(of: database.snapshot()) == expected)
    }

    @Test("the hot rule: a leaf encoded within hotVersions commits before counts as rewritten, one never encoded does not")
    func hotRule() {
        var leaf = Self.leaf([[1, 2, 3]])
        #expect(!LeafCompression.isHot(leaf, atVersion: 5), "never encoded since it was read")
        leaf.encodedAtVersion = 5
        #expect(!LeafCompression.isHot(leaf, atVersion: 5))
        #expect(LeafCompression.isHot(leaf, atVersion: 6))
        #expect(LeafCompression.isHot(leaf, atVersion: 5 + LeafCompression.hotVersions))
        #expect(!LeafCompression.isHot(leaf, atVersion: 6 + LeafCompression.hotVersions))

        var left = Self.leaf((0..<4).map { [UInt8($0)] })
        left.encodedAtVersion = 5
        let right = left.split(at: 2)
        #expect(left.encodedAtVersion == 0 && right.encodedAtVersion == 0, "a split leaves neither half hot")

        var page = LeafCompression.page(for: &leaf, atVersion: 6)
        #expect(leaf.encodedAtVersion == 6)
        let ref = PageCodec.seal(&page, at: 4096)
        let raw = try? page.withUnsafeBytes { try PageCodec.decode($0, ref: ref).1 }
        #expect(raw == NodeCodec.encodeWhole(leaf))
    }

    @Test("a leaf rewritten commit after commit is stored whole and raw, and packed again after a pause or a split")
    func hotLeaves() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        var expected: [UInt64: [UInt8]] = [:]
        // Rows as the row encoder writes them, which a leaf stores by column (layout 1) when
        // it is not hot. Numbers that count up and short names: they pack and compress.
        func append(_ count: Int) throws {
            try database.write { transaction in
                let tree = transaction.createTable("t").rowTree
                for _ in 0..<count {
                    let key = UInt64(expected.count + 1)
                    let row = Self.row(key)
                    try tree.append(key, row)
                    expected[key] = row
                }
            }
        }
        func spacers(_ count: UInt64) throws {
            for key in 1...count {
                try database.write { try $0.createTable("spacer").rowTree.append(UInt64(expected.count) << 8 | key, [1]) }
            }
        }

        try append(20)
        var leaves = try Self.storedLeaves(of: database)
        #expect(leaves.count == 1 && leaves[0].layout == .rowsByColumn && leaves[0].compressed, "written once: packed")
        try append(1)
        leaves = try Self.storedLeaves(of: database)
        #expect(leaves.count == 1 && leaves[0].layout == .values && !leaves[0].compressed, "rewritten by the next commit: whole and raw")
        try spacers(LeafCompression.hotVersions - 1)
        try append(1)
        #expect(try Self.storedLeaves(of: database)[0].layout == .values, "rewritten within hotVersions commits: still whole")
        try spacers(LeafCompression.hotVersions)
        try append(1)
        leaves = try Self.storedLeaves(of: database)
        #expect(leaves.count == 1 && leaves[0].layout == .rowsByColumn && leaves[0].compressed, "rewritten after a pause: packed again")

        // One row a commit until the leaf splits: the full half is packed, the new right
        // edge, once rewritten, is whole.
        while try Self.storedLeaves(of: database).count == 1 { try append(1) }
        try append(1)
        leaves = try Self.storedLeaves(of: database)
        #expect(leaves.count == 2)
        #expect(leaves.first?.layout == .rowsByColumn, "the half a split leaves behind is packed")
        #expect(leaves.last?.layout == .values, "the leaf the commits append to is whole")

        // Every row reads back, through the cache and from the file.
        #expect(try Self.rows(of: database.snapshot()) == expected)
        #expect(try Self.rows(of: Database.open(file: file).snapshot()) == expected)
    }

    @Test("a commit rewriting many leaves packs every one, hot or not; two leaves rewritten twice in a row are whole")
    func manyHotLeaves() throws {
        let database = try Database.open(file: InMemoryFile())
        let rows: UInt64 = 16_000
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            for key in 1...rows { try tree.append(key, Self.row(key)) }
        }
        let leafCount = try Self.storedLeaves(of: database).count
        #expect(leafCount > 2 * ParallelLeafEncoding.minimumLeaves)
        // A row in each of many leaves, twice in a row: the second commit's leaves were all
        // encoded by the commit before, and are packed all the same.
        func update(_ keys: [UInt64], _ version: Int) throws {
            try database.write { transaction in
                let tree = transaction.createTable("t").rowTree
                for key in keys { try tree.put(key, Self.row(key, version)) }
            }
        }
        let spread = Array(stride(from: UInt64(1), through: rows, by: Int(rows) / leafCount))
        try update(spread, 1)
        try update(spread, 2)
        #expect(try Self.storedLeaves(of: database).allSatisfy { $0.layout == .rowsByColumn })
        try update([1, rows], 3)
        try update([1, rows], 4)
        let layouts = try Self.storedLeaves(of: database).map(\.layout)
        #expect(layouts.first == .values && layouts.last == .values)
        #expect(layouts.dropFirst().dropLast().allSatisfy { $0 == .rowsByColumn })

        let found = try Self.rows(of: database.snapshot())
        #expect(found.count == Int(rows))
        for (key, value) in found {
            let version = [1, rows].contains(key) ? 4 : spread.contains(key) ? 2 : 0
            #expect(value == Self.row(key, version))
        }
    }
}
