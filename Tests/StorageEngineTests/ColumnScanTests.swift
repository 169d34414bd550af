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

    @Test("a leaf's packed column is kept in the cache under the leaf's page, and the whole table's from the third scan on: a fourth scan builds nothing")
    func columnsAreKeptWithTheirLeaf() throws {
        let database = try Database.open(file: InMemoryFile(), cacheBytes: 1 << 20)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for number in 0..<400 { _ = try table.insert([.int(Int64(number)), .double(Double(number))]) }
        }
        let table = try database.snapshot().table("t")
        let cache = table.rowTree.store.cache
        let firstHundred = ColumnFilter.integerRange(column: 0, range: 0...99, nullMatches: false)
        #expect(try table.count(where: firstHundred) == 100)
        let leafColumns = cache.statistics.usedBytes
        #expect(try table.count(where: firstHundred) == 100)
        #expect(cache.statistics.usedBytes == leafColumns, "the second count builds nothing")
        #expect(try table.count(where: firstHundred) == 100)
        let wholeColumn = cache.statistics.usedBytes
        #expect(wholeColumn - leafColumns >= 400 * 8, "the third count joins the leaves' columns into the table's")
        #expect(try table.count(where: firstHundred) == 100)
        #expect(cache.statistics.usedBytes == wholeColumn, "the fourth count builds nothing")
        #expect(try table.total(ofColumn: 1, kind: .double, where: nil).reals == Double((0..<400).reduce(0, +)))
        #expect(cache.statistics.usedBytes > wholeColumn, "the double column is kept too")
    }

    /// The reference of `table`'s root page, which it is stored under.
    static func root(of table: some TableReading) -> PageRef? {
        guard case .stored(let root) = table.rowTree.rootChild else { return nil }
        return root
    }

    @Test("a table's whole column is made by the third scan of a version, used from then on, and never for a version changed since")
    func wholeColumnsFollowTheVersion() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let table = transaction.createTable("t")
            for number in 0..<5000 { _ = try table.insert([.int(Int64(number)), .double(Double(number))]) }
        }
        let first = try database.snapshot().table("t")
        let cache = first.rowTree.store.cache
        let firstRoot = try #require(Self.root(of: first))
        let scoreTag = WholeTableColumns.tag(LeafColumn.tag(column: 1, kind: .double))
        let sumToN = { (n: Int) in Double((0..<n).reduce(0, +)) }
        for _ in 0..<2 {
            #expect(try first.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5000))
            #expect(cache.attachment(to: firstRoot, tag: scoreTag) == nil, "the first two scans make no whole column")
        }
        #expect(try first.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5000))
        let whole = try #require(cache.attachment(to: firstRoot, tag: scoreTag) as? LeafColumn, "the third scan makes it")
        #expect(whole.count == 5000 && whole.doubles == (0..<5000).map(Double.init))
        #expect(try first.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5000))
        #expect(cache.attachment(to: firstRoot, tag: scoreTag) === whole, "the fourth scan uses it")
        // A filter's column is joined by a later scan, and the sum's is used again.
        for _ in 0..<2 {
            #expect(try first.total(ofColumn: 1, kind: .double, where: .integerRange(column: 0, range: 0...9, nullMatches: false)).reals == sumToN(10))
        }
        #expect((cache.attachment(to: firstRoot, tag: WholeTableColumns.tag(LeafColumn.tag(column: 0, kind: .integer))) as? LeafColumn)?.integers
                == (0..<5000).map(Int64.init))
        #expect(cache.attachment(to: firstRoot, tag: scoreTag) === whole)

        try database.write { transaction in
            let table = try transaction.table("t")
            _ = try table.insert([.int(5000), .double(5000)])
            // Changed and not stored: read a leaf at a time, every time.
            for _ in 0..<4 { #expect(try table.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5001)) }
        }
        let second = try database.snapshot().table("t")
        let secondRoot = try #require(Self.root(of: second))
        #expect(secondRoot != firstRoot)
        for _ in 0..<4 { #expect(try second.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5001)) }
        #expect((cache.attachment(to: secondRoot, tag: scoreTag) as? LeafColumn)?.count == 5001)
        #expect(try first.total(ofColumn: 1, kind: .double, where: nil).reals == sumToN(5000), "the old version still reads its own")
    }

    @Test("columns too large for half the cache are never joined, and the scans stay right: numbers found too large before the scan, strings after", arguments: [false, true])
    func wholeColumnsTooLargeAreRefused(strings: Bool) throws {
        // The leaves' columns fit the cache, so the version's mark stays: 40 KB of integers
        // in 72 KB, or 68 KB of strings and their ends in 128 KB.
        let (rowCount, cacheBytes) = strings ? (2000, 128 << 10) : (5000, 72 << 10)
        let database = try Database.open(file: InMemoryFile(), cacheBytes: cacheBytes)
        let name = { (number: Int) in "name \(number) " + String(repeating: "x", count: 24 - "\(number)".count) }
        try database.write { transaction in
            let table = transaction.createTable("t")
            for number in 0..<rowCount { _ = try table.insert(strings ? [.string(name(number))] : [.int(Int64(number))]) }
        }
        let table = try database.snapshot().table("t")
        let cache = table.rowTree.store.cache
        let root = try #require(Self.root(of: table))
        let startsWithName1 = ColumnFilter.string(column: 0, test: { $0.map { $0.starts(with: "name 1".utf8) } ?? false })
        let expected = (0..<rowCount).filter { name($0).hasPrefix("name 1") }.count
        for _ in 0..<5 {
            if strings {
                #expect(try table.count(where: startsWithName1) == expected)
            } else {
                #expect(try table.total(ofColumn: 0, kind: .integer, where: nil).integers == Int128((0..<rowCount).reduce(0, +)))
            }
        }
        let mark = try #require(cache.attachment(to: root, tag: WholeTableColumns.markTag) as? WholeTableColumns.Mark)
        let (scans, refused) = (mark.scans.load(ordering: .relaxed), mark.refused.load(ordering: .relaxed))
        #expect(scans == 5 && refused)
        let tag = strings ? LeafColumn.tag(column: 0, kind: .string) : LeafColumn.tag(column: 0, kind: .integer)
        #expect(cache.attachment(to: root, tag: WholeTableColumns.tag(tag)) == nil)
        #expect(cache.statistics.usedBytes <= cacheBytes)
    }

    @Test("leaves' columns of any sizes join into the table's: each row's value and presence where it was")
    func leafColumnsJoin() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<12 {
            let database = try Database.open(file: InMemoryFile())
            try database.write { transaction in
                let table = transaction.createTable("t")
                for _ in 0..<Int.random(in: 0..<3000, using: &generator) { _ = try table.insert(Self.row(&generator)) }
            }
            let table = try database.snapshot().table("t")
            let store = table.rowTree.store
            var leaves: [Leaf] = []
            try table.rowTree.forEachLeafUnread { ref, leaf in
                if let leaf { leaves.append(leaf) } else if case .leaf(let read) = try store.node(ref!, caching: false) { leaves.append(read) }
                return true
            }
            for kind in [LeafColumn.Kind.integer, .double, .string] {
                let column = kind == .integer ? 0 : kind == .double ? 1 : 2
                let parts = try leaves.map { try LeafColumn.build(column, kind: kind, of: $0, store: store) }
                let joined = try #require(LeafColumn.joined(parts, kind: kind))
                var row = 0
                for part in parts {
                    for index in 0..<part.count {
                        #expect(Bitmap.contains(joined.present, row) == Bitmap.contains(part.present, index))
                        switch kind {
                        case .integer: #expect(joined.integers[row] == part.integers[index])
                        case .double: #expect(joined.doubles[row].bitPattern == part.doubles[index].bitPattern)
                        case .string: break
                        }
                        row += 1
                    }
                }
                #expect(joined.count == row && joined.present.count == Bitmap.words(for: row))
                #expect(Bitmap.population(joined.present) == parts.reduce(0) { $0 + Bitmap.population($1.present) })
                if kind == .string {
                    var strings: [[UInt8]?] = []
                    for part in parts { part.forEachString { _, bytes in strings.append(bytes.map(Array.init)) } }
                    var joinedStrings: [[UInt8]?] = []
                    joined.forEachString { _, bytes in joinedStrings.append(bytes.map(Array.init)) }
                    #expect(joinedStrings == strings)
                }
            }
        }
    }

    @Test("bits copied into a bitmap at any row land at that row, and no others change")
    func bitmapCopy() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let start = Int.random(in: 0..<200, using: &generator)
            let count = Int.random(in: 0..<200, using: &generator)
            let part = (0..<Bitmap.words(for: count)).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
            var whole = [UInt64](repeating: 0, count: Bitmap.words(for: start + count))
            Bitmap.copy(part, count: count, into: &whole, at: start)
            for row in 0..<(whole.count * 64) {
                let expected = row >= start && row < start + count && Bitmap.contains(part, row - start)
                #expect(Bitmap.contains(whole, row) == expected, "row \(row) of a copy of \(count) rows at \(start)")
            }
        }
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
