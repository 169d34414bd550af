import Testing
import TestSupport
@testable import StorageEngine

@Suite("Verification of a whole file")
struct VerificationTests {
    /// A file of rows, overflow values and a unique index in table "t", written in six commits
    /// and closed, then a last commit to another table. A page of the newest commit that
    /// fails its checksum makes the commit incomplete (a torn write: the file opens at the
    /// version before), so the pages of "t" this test damages must be older than it.
    static func soundImage(key: EncryptionKey?) throws -> [UInt8] {
        let (file, database, _) = try FaultInjectionTests.prepare(seed: 7, key: key)
        try FaultInjectionTests.commitChange(database)
        try database.write { try $0.createTable("u").insert([.int(1)], forKey: 1) }
        return withExtendedLifetime(database) { file.contents }
    }

    /// Every page the newest version references, with the structure that holds it.
    static func pages(of image: [UInt8], key: EncryptionKey?) throws -> [(ref: PageRef, structure: String)] {
        let database = try Database.open(file: InMemoryFile(contents: image), encryptionKey: key)
        let store = database.shared.store
        var pages: [(PageRef, String)] = []
        func walk(_ ref: PageRef, _ structure: String) throws {
            pages.append((ref, structure))
            if case .branch(let branch) = try store.node(ref) {
                for case .stored(let child) in branch.children { try walk(child, structure) }
            }
        }
        let roots = try #require(try database.snapshot().roots(ofTable: "t"))
        try walk(roots.rows, "rows")
        for index in roots.indexes { try walk(index.root, "index on column \(index.column)") }
        return pages
    }

    @Test("a sound file has no damage, and every page of it is counted", arguments: [false, true])
    func soundFile(encrypted: Bool) throws {
        let key = testKey(encrypted: encrypted)
        let image = try Self.soundImage(key: key)
        var reports: [(UInt64, UInt64)] = []
        let verification = try Database.open(file: InMemoryFile(contents: image), encryptionKey: key).verify { reports.append(($0, $1)) }
        #expect(verification.damage.isEmpty, "\(verification.damage)")
        let treePages = try Self.pages(of: image, key: key).count
        #expect(verification.pagesChecked > treePages)
        #expect(verification.treesChecked >= 2)
        let last = try #require(reports.last)
        #expect(last.0 > 0 && last.0 <= last.1)
    }

    @Test("a byte changed in any tree page is damage named by that page's offset and tree", arguments: [false, true])
    func damagedPage(encrypted: Bool) throws {
        let key = testKey(encrypted: encrypted)
        let image = try Self.soundImage(key: key)
        let pages = try Self.pages(of: image, key: key)
        #expect(pages.count > 3)
        for (ref, structure) in pages {
            var damaged = image
            damaged[Int(ref.offset) + Int(ref.length) / 2] ^= 0x5A
            let verification = try Database.open(file: InMemoryFile(contents: damaged), encryptionKey: key).verify()
            let first = try #require(verification.damage.first, "page at \(ref.offset) (\(structure)) damaged, none found")
            #expect(first.offset == ref.offset)
            #expect(first.table == "t")
            #expect(first.structure == structure)
            #expect(first.description.contains("page at \(ref.offset)"))
        }
    }

    @Test("a row count the catalog gets wrong is damage")
    func wrongRowCount() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        try database.write { transaction in
            for key in UInt64(1)...100 { try transaction.createTable("t").insert([.int(Int64(key))], forKey: key) }
        }
        // Rewrite the catalog page with a row count one too high, as a bug might.
        let header = try database.shared.readHeader().header
        var catalog = try Catalog.load(header.catalog, from: database.shared.store)
        catalog.tables["t"]!.rowCount += 1
        var writer = ByteWriter(capacity: 256)
        catalog.encode(into: &writer)
        var page = PageCodec.encode(kind: .catalog, raw: writer.bytes)
        let ref = PageCodec.seal(&page, at: header.catalog.offset)
        #expect(ref.length <= header.catalog.length)
        try file.write(page, at: ref.offset)
        var forged = header
        forged.catalog = ref
        forged.commitRecord = .null  // the commit record lists the catalog page's old checksum
        try forged.write(to: file, slot: 0)
        try forged.write(to: file, slot: 1)
        let verification = try Database.open(file: InMemoryFile(contents: file.contents)).verify()
        // Dropping the commit record leaves its page referenced by nothing: lost space, found too.
        #expect(verification.damage.map(\.reason) == ["holds 100 rows; the catalog says 101", "128 bytes neither used nor free (lost space, not lost data)"])
    }
}
