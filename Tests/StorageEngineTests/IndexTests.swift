import Foundation
import Testing
import TestSupport
@testable import StorageEngine

@Suite("Indexes")
struct IndexTests {
    /// The keys of rows whose `column` equals `value`, by scanning.
    static func scanKeys(_ table: some TableReading, column: Int, value: RowValue) throws -> [UInt64] {
        var keys: [UInt64] = []
        try table.scan { key, row in
            if try row.column(column).isIdentical(to: value) { keys.append(key) }
            return true
        }
        return keys
    }

    @Test("a bucket's stored value equals a probe exactly when the decoded values are identical")
    func bucketValueEquality() throws {
        let strings = ["", "a", "Rex", "Rexa", "rex", "caf\u{E9}", "cafe\u{301}", "cafe", "\u{1F600}", "abcdefghijklmnopqrstuvwxyz"]
        let values: [RowValue] = strings.map { .string($0) } + [.null, .int(3), .double(-0.0), .double(0), .double(.nan), .binary([0x61])]
        for stored in values {
            let encoded = RowCodec.encode([stored])
            for probe in values {
                let equal = try encoded.withUnsafeBytes { try IndexBucket.encodedValue($0, equals: probe) }
                #expect(equal == stored.isIdentical(to: probe), "\(stored) against \(probe)")
            }
        }
        // Canonically equivalent strings are two values to an index, though Swift's == calls
        // them equal: strings are compared by their bytes (Docs/Limits.md).
        #expect(!RowValue.string("caf\u{E9}").isIdentical(to: .string("cafe\u{301}")))
        #expect(RowValue.string("caf\u{E9}").isIdentical(to: .string("caf\u{E9}")))
    }

    @Test("rows and index buckets appended in order are found again, short values and long ones, after reopening")
    func appendedRowsAndBuckets() throws {
        // Increasing index keys (an 8-byte prefix that counts up), so every bucket is appended
        // along the index's right edge; every fifth value is long (its bucket's value takes
        // 128 bytes or more, past the length byte set aside for it: the bucket is encoded the
        // growing way) and every seventh row holds a list (a nested encoding, bounded too).
        let file = InMemoryFile()
        func value(_ number: Int) -> String {
            let prefix = String(format: "%08d", number)
            return number % 5 == 0 ? prefix + String(repeating: "x", count: 200 + number % 3) : prefix + "-\(number)"
        }
        func row(_ number: Int) -> [RowValue] {
            [.string(value(number)), .int(Int64(number) * 1_000_003), .timestamp(seconds: Int64(number) << 20, nanoseconds: Int32(number % 7)),
             number % 7 == 0 ? .list([.int(Int64(number)), .string("l")]) : .double(Double(number) / 3)]
        }
        do {
            let database = try Database.open(file: file)
            try database.write { transaction in
                let table = transaction.createTable("t")
                try table.addIndex(on: 0, unique: true)
                for number in 1...400 { _ = try table.insert(row(number)) }
            }
        }
        let table = try Database.open(file: file).snapshot().table("t")
        for number in 1...400 {
            let keys = try table.keys(where: 0, equals: .string(value(number)))
            #expect(keys.count == 1, "\(value(number))")
            if let key = keys.first { #expect(try table.row(key) == row(number)) }
        }
    }

    @Test("one row per transaction on a unique increasing index: each bucket is appended after the stored ones, and a value already stored is still refused")
    func oneRowTransactionsAppend() throws {
        // Each transaction finds the index's last key by reading its stored right edge, and
        // appends when the new value is past it (see `MutableTree.isAfterLastKey`).
        let database = try Database.open(file: InMemoryFile())
        try database.write { try $0.createTable("t").addIndex(on: 0, unique: true) }
        for number in 1...300 {
            try database.write { transaction in
                let table = try transaction.table("t")
                #expect(try table.index(on: 0)!.tree.isAfterLastKey(IndexKey.of(.int(Int64(number)))))
                #expect(try !table.index(on: 0)!.tree.isAfterLastKey(IndexKey.of(.int(Int64(number - 1)))) || number == 1)
                _ = try table.insert([.int(Int64(number)), .string("row \(number)")])
            }
        }
        for duplicate in [1, 150, 300] {
            #expect(throws: StorageError.self) {
                try database.write { _ = try $0.table("t").insert([.int(Int64(duplicate)), .string("again")]) }
            }
        }
        let table = try database.snapshot().table("t")
        #expect(table.count == 300)
        for number in 1...300 {
            let keys = try table.keys(where: 0, equals: .int(Int64(number)))
            #expect(keys.count == 1)
            if let key = keys.first { #expect(try table.row(key) == [.int(Int64(number)), .string("row \(number)")]) }
        }
    }

    @Test("random inserts, updates and deletes keep indexes equal to a scan, inside and across transactions")
    func indexesFollowTheRows() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let table = transaction.createTable("t")
            try table.addIndex(on: 0, unique: false)   // 4 distinct values: long posting lists
            try table.addIndex(on: 1, unique: false)   // strings sharing 8-byte prefixes
            try table.addIndex(on: 2, unique: true)
        }
        var nextUnique: Int64 = 0
        func row() -> [RowValue] {
            nextUnique += 1
            return [.int(Int64.random(in: 0..<4, using: &random)),
                    .string("prefix-\(Int.random(in: 0..<40, using: &random))"),
                    .int(nextUnique)]
        }
        for round in 0..<12 {
            try database.write { transaction in
                let table = try transaction.table("t")
                for _ in 0..<(round < 4 ? 600 : 250) {
                    let keys = try table.keys()
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<5 where round < 8 || keys.count < 200:
                        try table.insert(row())
                    case 5..<8 where !keys.isEmpty:
                        try table.update(keys.randomElement(using: &random)!, to: row())
                    default:
                        if let key = keys.randomElement(using: &random) { try table.delete(key) }
                    }
                }
                for value in (0..<4).map({ RowValue.int(Int64($0)) }) {
                    #expect(try table.keys(where: 0, equals: value) == Self.scanKeys(table, column: 0, value: value), "seed \(seed)")
                }
            }
            let table = try database.snapshot().table("t")
            for value in (0..<4).map({ RowValue.int(Int64($0)) }) {
                #expect(try table.keys(where: 0, equals: value) == Self.scanKeys(table, column: 0, value: value), "round \(round), seed \(seed)")
            }
            for suffix in 0..<40 {
                let value = RowValue.string("prefix-\(suffix)")
                #expect(try table.keys(where: 1, equals: value) == Self.scanKeys(table, column: 1, value: value), "seed \(seed)")
            }
            if let key = try table.keys().first, let unique = try table.value(key, column: 2) {
                #expect(try table.keys(where: 2, equals: unique) == [key])
            }
        }
    }

    @Test("an indexed Bool over 30,000 rows: long posting lists live in trees, and dropping the index frees them")
    func lowCardinality() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let table = transaction.createTable("t")
            try table.addIndex(on: 0, unique: false)
            for key in UInt64(1)...30_000 { try table.insert([.bool(key % 3 == 0), .int(Int64(key))]) }
        }
        let snapshot = try database.snapshot()
        let table = try snapshot.table("t")
        #expect(try table.keys(where: 0, equals: .bool(true)) == Array(stride(from: UInt64(3), through: 30_000, by: 3)))
        #expect(try table.keys(where: 0, equals: .bool(false)).count == 20_000)
        let (tree, _) = try #require(table.index(on: 0))
        #expect(try tree.allKeys().count == 2, "two buckets: false and true")
        let bucket = try #require(try tree.withValue(forKey: IndexKey.of(.bool(true))) { try IndexBucket.decode($0) })
        guard case .tree(_, let count)? = bucket.postingList(for: .bool(true)) else {
            Issue.record("a 10,000-row posting list should be a tree")
            return
        }
        #expect(count == 10_000)
        #expect(try table.firstKey(where: 0, equals: .bool(true)) == 3, "the first key of a posting tree")
        #expect(try table.firstKey(where: 0, equals: .bool(false)) == 1)

        // Updates move rows between the lists; deleting most rows brings a list back inline.
        try database.write { transaction in
            let table = try transaction.table("t")
            for key in UInt64(1)...30_000 where key % 3 == 0 && key > 300 { try table.delete(key) }
            try table.set(1, column: 0, to: .bool(true))
            #expect(try table.keys(where: 0, equals: .bool(true)).count == 101)
        }
        let after = try database.snapshot().table("t")
        #expect(try after.keys(where: 0, equals: .bool(true)) == [1] + Array(stride(from: UInt64(3), through: 300, by: 3)))
        let (afterTree, _) = try #require(after.index(on: 0))
        let afterBucket = try #require(try afterTree.withValue(forKey: IndexKey.of(.bool(true))) { try IndexBucket.decode($0) })
        guard case .inline(let keys)? = afterBucket.postingList(for: .bool(true)) else {
            Issue.record("a 101-row posting list should be inline again")
            return
        }
        #expect(keys.count == 101)
        #expect(try after.firstKey(where: 0, equals: .bool(true)) == 1, "the first key of an inline list")
        // The old snapshot still reads its own version of the index.
        #expect(try table.keys(where: 0, equals: .bool(true)).count == 10_000)

        let before = database.shared.knownHeader.end
        for _ in 0..<3 {
            try database.write { try $0.table("t").removeIndex(on: 0) }
            try database.write { try $0.table("t").addIndex(on: 0, unique: false) }
        }
        #expect(database.shared.knownHeader.end < before * 2, "rebuilding the index reuses the space of the dropped one")
    }

    @Test("deleting every row frees every page of a unique index and of an index with posting trees, in a committed and in an uncommitted version")
    func deleteAllFreesIndexes() throws {
        let file = InMemoryFile()
        let database = try Database.open(file: file)
        try database.write { transaction in
            let table = transaction.createTable("t")
            try table.addIndex(on: 0, unique: true)
            try table.addIndex(on: 1, unique: false)
            for key in 1...3_000 { _ = try table.insert([.int(Int64(key)), .bool(key % 2 == 0)]) }
        }
        let bucket = try #require(try database.snapshot().table("t").index(on: 1)?.tree.withValue(forKey: IndexKey.of(.bool(true))) { try IndexBucket.decode($0) })
        guard case .tree? = bucket.postingList(for: .bool(true)) else {
            Issue.record("a 1,500-row posting list should be a tree")
            return
        }
        try database.write { transaction in
            let table = try transaction.table("t")
            // Rows added in the same transaction, some of them moving a posting tree's root.
            for key in 3_001...3_400 { _ = try table.insert([.int(Int64(key)), .bool(true)]) }
            try table.deleteAll()
            #expect(try table.keys(where: 0, equals: .int(7)).isEmpty)
        }
        #expect(try spaceAccountingProblem(in: file) == nil)
        let table = try database.snapshot().table("t")
        #expect(table.count == 0)
        #expect(try table.keys(where: 1, equals: .bool(true)).isEmpty)
        try database.write { _ = try $0.table("t").insert([.int(7), .bool(true)]) }
        #expect(try database.snapshot().table("t").keys(where: 0, equals: .int(7)).count == 1)
        #expect(try spaceAccountingProblem(in: file) == nil)
    }
}
