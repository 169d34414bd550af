import Testing
@testable import AsyncRealm

@Suite("Sort keys: prefixes order like the values they stand for")
struct SortKeysTests {
    /// The order `SORT` promises: nil first, then `QueryScalar.order`, ties in position order.
    static func reference(_ columns: [[QueryScalar]], ascending: [Bool]) -> [Int] {
        Array(0..<(columns.first?.count ?? 0)).sorted { a, b in
            for (column, up) in zip(columns, ascending) {
                let order = QueryPlanner.sortOrder(column[a], column[b])
                if order != 0 { return up ? order < 0 : order > 0 }
            }
            return a < b
        }
    }

    static let strings: [String?] = [
        nil, "", "\u{0}", "a", "a\u{0}", "a\u{0}b", "ab", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "abcdefgg~",
        "B", "Zebra", "zebra", "é", "e\u{301}", "e\u{301}x", "ea", "f", "Åb", "日本", "abcdefgh日",
    ]
    static let integers: [Int64?] = [nil, .min, .min + 1, -1, 0, 1, 255, 256, .max - 1, .max]

    @Test("random columns of integers, ASCII strings and any strings sort as the values do, both directions, one key, two and three")
    func randomColumns() {
        var random = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let count = Int.random(in: 0...60, using: &random)
            let asciiOnly = round % 3 == 0
            let stringPool = asciiOnly ? Self.strings.filter { $0?.utf8.allSatisfy { $0 < 0x80 } ?? true } : Self.strings
            let strings: [QueryScalar] = (0..<count).map { _ in stringPool.randomElement()!.map(QueryScalar.string) ?? .null }
            let integers: [QueryScalar] = (0..<count).map { _ in Self.integers.randomElement()!.map(QueryScalar.int) ?? .null }
            let doubles: [QueryScalar] = (0..<count).map { _ in Bool.random() ? .double(Double(Int.random(in: -3...3)) / 2) : .null }
            for columns in [[strings], [integers], [doubles], [integers, strings], [strings, integers], [doubles, strings], [integers, strings, doubles], [strings, doubles, integers]] {
                let ascending = columns.map { _ in Bool.random(using: &random) }
                let sorted = SortKeys(columns: columns, ascending: ascending).sortedPositions()
                #expect(sorted == Self.reference(columns, ascending: ascending), "\(columns) \(ascending)")
            }
        }
    }

    /// `values` (ASCII or nil) as the bytes `QueryPlanner` reads from rows.
    static func asciiColumn(_ values: [String?]) -> ASCIIStrings {
        var column = ASCIIStrings(count: values.count)
        for (position, value) in values.enumerated() {
            guard var value else { continue }
            let isASCII = value.withUTF8 { column.set(UnsafeRawBufferPointer($0), at: position) }
            #expect(isASCII, "\(value) is ASCII")
        }
        return column
    }

    @Test("ASCII strings read as bytes sort as the same strings do, alone and beside integers")
    func asciiBytes() {
        var random = SystemRandomNumberGenerator()
        let pool = Self.strings.filter { $0?.utf8.allSatisfy { $0 < 0x80 } ?? true } + ["abcdefghZ", "abcdefgh", "abcdefghA", "ab\u{0}\u{0}"]
        for _ in 0..<300 {
            let count = Int.random(in: 0...60, using: &random)
            let texts = (0..<count).map { _ in pool.randomElement(using: &random)! }
            let strings = texts.map { $0.map(QueryScalar.string) ?? .null }
            let integers: [QueryScalar] = (0..<count).map { _ in Self.integers.randomElement(using: &random)!.map(QueryScalar.int) ?? .null }
            let bytes = SortKeys.Values.asciiStrings(Self.asciiColumn(texts))
            for (values, columns) in [([bytes], [strings]), ([.scalars(integers), bytes], [integers, strings]), ([bytes, .scalars(integers)], [strings, integers])] {
                let ascending = columns.map { _ in Bool.random(using: &random) }
                let sorted = SortKeys(values, ascending: ascending).sortedPositions()
                #expect(sorted == Self.reference(columns, ascending: ascending), "\(columns) \(ascending)")
            }
        }
        var column = ASCIIStrings(count: 1)
        var text = "é"
        #expect(!text.withUTF8 { column.set(UnsafeRawBufferPointer($0), at: 0) }, "bytes beyond ASCII are refused")
    }

    @Test("columns long enough for the radix sort order as the values do: ties on prefixes, nil, long strings, both directions")
    func radixSortedColumns() {
        var random = SystemRandomNumberGenerator()
        // Few distinct first bytes and many strings sharing an eight-byte prefix, so that the
        // runs the prefixes leave undecided are common.
        let pool = Self.strings.filter { $0?.utf8.allSatisfy { $0 < 0x80 } ?? true }
            + ["abcdefghZ", "abcdefgh", "abcdefghA", "ab\u{0}\u{0}", "abcdefghAB", "abcdefghAA"]
        for round in 0..<40 {
            let count = SortKeys.radixSortThreshold + Int.random(in: 0...2_000, using: &random)
            let texts = (0..<count).map { _ in pool.randomElement(using: &random)! }
            let strings = texts.map { $0.map(QueryScalar.string) ?? .null }
            // Small integers (one byte differs), or any from the pool (every byte may differ,
            // past the radix sort's limit with a string key beside them).
            let integers: [QueryScalar] = (0..<count).map { _ in
                if round % 2 == 0 { return Bool.random(using: &random) ? .int(Int64.random(in: 0...99, using: &random)) : .null }
                return Self.integers.randomElement(using: &random)!.map(QueryScalar.int) ?? .null
            }
            let bytes = SortKeys.Values.asciiStrings(Self.asciiColumn(texts))
            for (values, columns) in [([bytes], [strings]), ([.scalars(integers)], [integers]),
                                      ([.scalars(integers), bytes], [integers, strings]), ([bytes, .scalars(integers)], [strings, integers])] {
                let ascending = columns.map { _ in Bool.random(using: &random) }
                let sorted = SortKeys(values, ascending: ascending).sortedPositions()
                #expect(sorted == Self.reference(columns, ascending: ascending), "\(count) values, \(ascending)")
            }
        }
    }

    @Test("a prefix stands for its value only when nothing is cut off")
    func prefixes() {
        #expect(SortKeys.prefix(of: .string("abc")) == (0x6162_6300_0000_0000, true))
        #expect(SortKeys.prefix(of: .string("abcdefghi")).1 == false, "longer than eight bytes")
        #expect(SortKeys.prefix(of: .string("a\u{0}")).1 == false, "a NUL byte looks like the end")
        #expect(SortKeys.prefix(of: .int(.min)) == (0, false), "the smallest integer shares nil's prefix")
        #expect(SortKeys.prefix(of: .null) == (0, false))
        #expect(!SortKeys.hasPrefixes([.string("a"), .string("é")]), "bytes beyond ASCII do not order as scalars do")
        #expect(!SortKeys.hasPrefixes([.int(1), .string("a")]))
        #expect(SortKeys.hasPrefixes([.null, .int(1), .int(-4)]))
    }
}
