import Foundation
import Testing
import TestSupport
@testable import StorageEngine

/// Counts, keys and totals read from leaves' packed columns (`LeafColumn`, `ColumnFilter`)
/// against the same questions answered row by row.
@Suite("Column scans")
struct ColumnScanTests {
    /// A row of random columns: 0 an integer (some null, some huge, some negative), 1 a double
    /// (some null), 2 a string (some null, some not ASCII, a few long enough for an overflow
    /// page); some rows stop after column 1, as rows written before a column was added do.
    static func row(_ generator: inout SystemRandomNumberGenerator) -> [RowValue] {
        let integer: RowValue = switch Int.random(in: 0..<10, using: &generator) {
        case 0: .null
        case 1: .int(.max - Int64.random(in: 0..<4, using: &generator))
        case 2: .int(.min + Int64.random(in: 0..<4, using: &generator))
        default: .int(Int64.random(in: -50...50, using: &generator))
        }
        // Eighths add up exactly in any order; the others (all 52 bits of fraction, some of
        // them large) round, so a sum added in another order than `DoubleSum`'s differs.
        let double: RowValue = switch Int.random(in: 0..<8, using: &generator) {
        case 0: .null
        case 1, 2: .double(Double.random(in: -1e6...1e6, using: &generator))
        case 3: .double(Double.random(in: -1e15...1e15, using: &generator))
        case 4 where Int.random(in: 0..<20, using: &generator) == 0: .double(.nan)
        case 4 where Bool.random(using: &generator): .double(-0.0)
        case 4: .double(0)
        default: .double(Double(Int.random(in: -1000...1000, using: &generator)) / 8)
        }
        var values = [integer, double]
        guard Int.random(in: 0..<10, using: &generator) != 0 else { return values }
        let words = ["apple", "Avocado", "banana", "\u{E9}clair", "", "abc", "ab"]
        let string: RowValue = switch Int.random(in: 0..<12, using: &generator) {
        case 0: .null
        case 1: .string("a" + String(repeating: "long", count: 700))
        default: .string(words.randomElement(using: &generator)!)
        }
        values.append(string)
        return values
    }

    static var filters: [(String, ColumnFilter, ([RowValue]) -> Bool)] {
        func integer(_ row: [RowValue]) -> Int64? { if case .int(let value) = row[0] { value } else { nil } }
        func string(_ row: [RowValue]) -> String? { if row.count > 2, case .string(let value) = row[2] { value } else { nil } }
        let startsWithA: (UnsafeRawBufferPointer?) -> Bool = { $0.map { $0.first == UInt8(ascii: "a") } ?? false }
        return [
            ("integer in -10...20", .integerRange(column: 0, range: -10...20, nullMatches: false), { integer($0).map { (-10...20).contains($0) } ?? false }),
            ("integer at least max - 2", .integerRange(column: 0, range: (Int64.max - 2)...Int64.max, nullMatches: false), { (integer($0) ?? 0) >= Int64.max - 2 }),
            ("integer anything", .integerRange(column: 0, range: Int64.min...Int64.max, nullMatches: false), { integer($0) != nil }),
            ("integer none, null passes", .integerRange(column: 0, range: nil, nullMatches: true), { integer($0) == nil }),
            ("integer != 3", .not(.integerRange(column: 0, range: 3...3, nullMatches: false)), { integer($0) != 3 }),
            ("integer in {1, 2, min}", .integerSet(column: 0, values: [1, 2, .min], nullMatches: false), { [1, 2, .min].contains(integer($0)) }),
            ("string starts with a", .string(column: 2, test: startsWithA), { string($0)?.hasPrefix("a") ?? false }),
            ("integer > 0 and string starts with a", .and([.integerRange(column: 0, range: 1...Int64.max, nullMatches: false), .string(column: 2, test: startsWithA)]),
             { (integer($0) ?? 0) > 0 && (string($0)?.hasPrefix("a") ?? false) }),
            ("integer < 0 or no string", .or([.integerRange(column: 0, range: Int64.min...(-1), nullMatches: false), .string(column: 2, test: { $0 == nil })]),
             { (integer($0) ?? 0) < 0 || string($0) == nil }),
            ("everything", .constant(true), { _ in true }),
            ("nothing", .constant(false), { _ in false }),
        ]
    }

    /// The bit patterns of the smallest and largest of `values`, NaNs left out (as aggregates
    /// leave them out) and the first of equal values kept, found by comparing them one by one.
    static func extremes(of values: [Double]) -> [UInt64]? {
        let counted = values.filter { !$0.isNaN }
        guard var (smallest, largest) = counted.first.map({ ($0, $0) }) else { return nil }
        for value in counted.dropFirst() {
            if value < smallest { smallest = value }
            if value > largest { largest = value }
        }
        return [smallest.bitPattern, largest.bitPattern]
    }

    /// Checks every filter's count, keys and totals on `table` against `rows`.
    static func check(_ table: some TableReading, against rows: [UInt64: [RowValue]], _ stage: String) throws {
        for (name, filter, passes) in filters {
            let expected = rows.keys.filter { passes(rows[$0]!) }.sorted()
            #expect(try table.keys(where: filter) == expected, "\(stage): keys where \(name)")
            #expect(try table.count(where: filter) == expected.count, "\(stage): count where \(name)")
            var integers: Int128 = 0
            var reals = DoubleSum()
            var (integerCount, realCount) = (0, 0)
            for key in expected {
                if case .int(let value) = rows[key]![0] { integers += Int128(value); integerCount += 1 }
                if case .double(let value) = rows[key]![1], reals.add(value) { realCount += 1 }
            }
            let integerTotal = try table.total(ofColumn: 0, kind: .integer, where: filter)
            #expect(integerTotal.integers == integers && integerTotal.count == integerCount, "\(stage): integer total where \(name)")
            #expect(try table.doubleExtremes(ofColumn: 1, where: filter).map { [$0.smallest.bitPattern, $0.largest.bitPattern] }
                    == Self.extremes(of: expected.compactMap { if case .double(let value) = rows[$0]![1] { value } else { nil } }),
                    "\(stage): double extremes where \(name)")
            let realTotal = try table.total(ofColumn: 1, kind: .double, where: filter)
            #expect(realTotal.reals.bitPattern == reals.total.bitPattern && realTotal.count == realCount, "\(stage): double total where \(name)")
        }
        let whole = try table.total(ofColumn: 1, kind: .double, where: nil)
        let rowByRow = try table.total(ofColumn: 1, where: nil)
        #expect(whole.reals.bitPattern == rowByRow.reals.bitPattern && whole.count == rowByRow.count, "\(stage): the whole table's double total")
    }

    @Test("counts, keys and totals from packed columns equal those read row by row: in a write transaction, in snapshots, and after changes to cached leaves")
    func columnScansMatchRows() throws {
        var generator = SystemRandomNumberGenerator()
        let database = try Database.open(file: InMemoryFile())
        var rows: [UInt64: [RowValue]] = [:]
        try database.write { transaction in
            let table = transaction.createTable("t")
            for _ in 0..<3000 {
                let row = Self.row(&generator)
                rows[try table.insert(row)] = row
            }
            try Self.check(table, against: rows, "in the first write transaction")
        }
        let firstSnapshot = try database.snapshot()
        let first = try firstSnapshot.table("t")
        try Self.check(first, against: rows, "in a snapshot")
        // Again, now that the leaves' columns are kept in the page cache.
        try Self.check(first, against: rows, "in a snapshot, from kept columns")
        let firstRows = rows
        for round in 0..<3 {
            try database.write { transaction in
                let table = try transaction.table("t")
                for key in rows.keys.shuffled(using: &generator).prefix(200) {
                    if Bool.random(using: &generator) {
                        _ = try table.delete(key)
                        rows[key] = nil
                    } else {
                        let row = Self.row(&generator)
                        _ = try table.update(key, to: row)
                        rows[key] = row
                    }
                }
                for _ in 0..<100 {
                    let row = Self.row(&generator)
                    rows[try table.insert(row)] = row
                }
                try Self.check(table, against: rows, "in write transaction \(round + 2)")
            }
            try Self.check(try database.snapshot().table("t"), against: rows, "after write transaction \(round + 2)")
        }
        // The first snapshot still reads its own version, its kept columns untouched.
        try withExtendedLifetime(firstSnapshot) {
            try Self.check(first, against: firstRows, "in the first snapshot, after the changes")
        }
    }

    @Test("a leaf's packed column is kept in the cache under the leaf's page, and a second scan builds nothing")
    func columnsAreKeptWithTheirLeaf() throws {
        let database = try Database.open(file: InMemoryFile(), cacheBytes: 1 << 20)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for number in 0..<400 { _ = try table.insert([.int(Int64(number)), .double(Double(number))]) }
        }
        let table = try database.snapshot().table("t")
        let cache = table.rowTree.store.cache
        #expect(try table.count(where: .integerRange(column: 0, range: 0...99, nullMatches: false)) == 100)
        let used = cache.statistics.usedBytes
        #expect(try table.count(where: .integerRange(column: 0, range: 0...99, nullMatches: false)) == 100)
        #expect(cache.statistics.usedBytes == used, "the second count builds nothing")
        #expect(try table.total(ofColumn: 1, kind: .double, where: nil).reals == Double((0..<400).reduce(0, +)))
        #expect(cache.statistics.usedBytes > used, "the double column is kept too")
    }

    @Test("with a cache too small for the leaves and their columns, repeated sums come to read only the kept columns, no leaf")
    func keptColumnsNeedNoLeaves() throws {
        let database = try Database.open(file: InMemoryFile(), cacheBytes: 400 << 10)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for number in 0..<20_000 { _ = try table.insert([.int(Int64(number)), .double(Double(number) / 4), .string("row \(number) of the table")]) }
        }
        let table = try database.snapshot().table("t")
        let cache = table.rowTree.store.cache
        let expected = Double((0..<20_000).reduce(0, +)) / 4
        var missesPerSum: [Int] = []
        for _ in 0..<6 {
            let before = cache.statistics.misses
            #expect(try table.total(ofColumn: 1, kind: .double, where: nil).reals == expected)
            missesPerSum.append(cache.statistics.misses - before)
        }
        #expect(missesPerSum.first! > 20, "the first sum reads the leaves: \(missesPerSum)")
        #expect(missesPerSum.last! == 0, "the last sums read no page: \(missesPerSum)")
        // The leaves the first sum read were not kept, so its columns were not evicted to
        // make room for them: the second sum reads no page either.
        #expect(missesPerSum.dropFirst().allSatisfy { $0 == 0 }, "only the first sum reads pages: \(missesPerSum)")
        #expect(cache.statistics.usedBytes <= 400 << 10)
    }
}

@Suite("Leaf read-ahead")
struct LeafReadAheadTests {
    /// The leaves of `table`'s row tree as a scan is given them, in key order: each one's
    /// reference (nil for the empty root leaf of an empty table, which is not stored), and the
    /// leaf if the walk read it.
    static func leaves(of table: some TableReading) throws -> [(ref: PageRef?, leaf: Leaf?)] {
        var leaves: [(PageRef?, Leaf?)] = []
        try table.rowTree.forEachLeafUnread { ref, leaf in
            leaves.append((ref, leaf))
            return true
        }
        return leaves
    }

    @Test("hands on every leaf taken, once and in order, each with its own kept columns, whether the scan has none, one or many leaves")
    func handsOnEachLeafWithItsColumns() throws {
        for rowCount in [0, 1, 150, 400, 3000] {
            let database = try Database.open(file: InMemoryFile())
            try database.write { transaction in
                let table = transaction.createTable("t")
                for number in 0..<rowCount { _ = try table.insert([.int(Int64(number)), .double(Double(number) / 2)]) }
            }
            let table = try database.snapshot().table("t")
            // A first sum builds and keeps every leaf's columns, which the read-ahead finds.
            _ = try table.total(ofColumn: 0, kind: .integer, where: .integerRange(column: 1, range: nil, nullMatches: true))
            let leaves = try Self.leaves(of: table)
            let refs = leaves.map(\.ref)
            if rowCount > 3000 / 2 { #expect(refs.count > 3, "the table has leaves enough to read ahead: \(refs.count)") }
            var ahead = LeafReadAhead(reading: [(0, .integer), (1, .double), (0, .integer)], store: table.rowTree.store)
            var handedOn: [PageRef?] = []
            var firstValues: [Int64] = []
            var keyOffset: UInt64?
            func check(_ rows: LeafRows) throws {
                handedOn.append(rows.ref)
                let integers = try rows.column(0, .integer)
                let doubles = try rows.column(1, .double)
                #expect(integers.count == (try rows.leaf().count) && doubles.count == integers.count)
                #expect(zip(integers.integers, doubles.doubles).allSatisfy { Double($0) / 2 == $1 }, "the two columns are of one leaf")
                // Keys are given in insertion order, so each row's key is its number plus one
                // offset, the same in every leaf.
                let keys = try rows.leaf().keys
                guard !keys.isEmpty else { return }
                let offset = keyOffset ?? keys[0] &- UInt64(integers.integers[0])
                keyOffset = offset
                #expect(integers.integers.map { UInt64($0) &+ offset } == keys, "the columns are of the leaf handed on")
                firstValues.append(integers.integers.first ?? -1)
            }
            for (ref, leaf) in leaves {
                if let rows = ahead.take(ref, leaf) { try check(rows) }
            }
            if let rows = ahead.last() { try check(rows) }
            #expect(ahead.last() == nil, "the last leaf is handed on once")
            #expect(handedOn == refs, "\(rowCount) rows: every leaf, once, in order")
            #expect(firstValues == firstValues.sorted(), "\(rowCount) rows: the leaves' columns in key order")
        }
    }
}
