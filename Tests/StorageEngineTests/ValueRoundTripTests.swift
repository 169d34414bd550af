import Testing
@testable import StorageEngine
import TestSupport

@Suite("RowValue round trips")
struct ValueRoundTripTests {
    static let samples: [RowValue] = [
        .null, .bool(false), .bool(true),
        .int(0), .int(1), .int(-1), .int(127), .int(128), .int(Int64.max), .int(Int64.min),
        .float(0), .float(-1.5), .float(.infinity), .float(Float.leastNonzeroMagnitude),
        .double(0), .double(3.141592653589793), .double(-.greatestFiniteMagnitude), .double(-0.0),
        .string(""), .string("Fido"), .string("héllo wörld 🐶"), .string(String(repeating: "long ", count: 2000)),
        .binary([]), .binary([0, 1, 2, 255]), .binary([UInt8](repeating: 7, count: 10_000)),
        .timestamp(seconds: 0, nanoseconds: 0), .timestamp(seconds: 1_700_000_000, nanoseconds: 999_999_999),
        .timestamp(seconds: -62_135_596_800, nanoseconds: 1),
        .uuid(0), .uuid(UInt128.max), .uuid(0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210),
        .objectKey(1), .objectKey(UInt64.max),
        .list([]), .list([.objectKey(1), .objectKey(2), .objectKey(2)]),
        .list([.int(1), .string("two"), .null, .double(3)]), .list([.list([.int(1)])]),
    ]

    @Test("every value type survives the row codec, column by column")
    func rowCodec() throws {
        let encoded = RowCodec.encode(Self.samples)
        try encoded.withUnsafeBytes { (bytes) throws in
            #expect(try RowCodec.decode(bytes) == Self.samples)
            for (column, expected) in Self.samples.enumerated() {
                #expect(try RowCodec.decodeColumn(column, of: bytes) == expected)
            }
            #expect(try RowCodec.decodeColumn(Self.samples.count + 3, of: bytes) == .null)
            var visited: [RowValue] = []
            try RowCodec.forEachValue(in: bytes) { index, value in
                #expect(index == visited.count)
                visited.append(value)
            }
            #expect(visited == Self.samples)
        }
    }

    @Test("reading one column agrees with the checked decoder on random rows, and damaged rows are reported, never a crash")
    func columnFastPath() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        for round in 0..<400 {
            // Now and then more than 127 columns, whose count takes two bytes: the typed reads
            // find their columns there too (filters and aggregates take nil as no value).
            let width = round % 25 == 0 ? Int.random(in: 128...200, using: &random) : Int.random(in: 1...30, using: &random)
            let row = (0..<width).map { _ in Self.samples[Int.random(in: 0..<Self.samples.count, using: &random)] }
            var encoded = RowCodec.encode(row)
            let damaged = Bool.random(using: &random)
            if damaged {
                // Damage: flip a byte or cut the row short.
                if Bool.random(using: &random), !encoded.isEmpty {
                    encoded[Int.random(in: 0..<encoded.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                } else {
                    encoded.removeLast(Int.random(in: 0...encoded.count, using: &random))
                }
            }
            encoded.withUnsafeBytes { bytes in
                for column in 0..<(width + 2) {
                    let checked = try? RowCodec.decodeColumnChecked(column, of: bytes)
                    let fast = try? RowCodec.decodeColumn(column, of: bytes)
                    // Compared as text: a damaged row may decode to a NaN, which equals nothing.
                    #expect(String(describing: fast) == String(describing: checked), "column \(column) of a \(width)-column row (seed \(seed))")
                    let checkedString = (try? RowCodec.stringBytesChecked(column, of: bytes)).map { $0.map(Array.init) }
                    let fastString = (try? RowCodec.stringBytes(column, of: bytes)).map { $0.map(Array.init) }
                    #expect(fastString == checkedString, "string bytes of column \(column) of a \(width)-column row (seed \(seed))")
                    if case .int(let number)? = checked {
                        #expect((try? RowCodec.integer(column, of: bytes)) == number, "integer column \(column) (seed \(seed))")
                    } else if checked != nil {
                        #expect((try? RowCodec.integer(column, of: bytes)) == Int64?.none, "column \(column) holds no integer (seed \(seed))")
                    }
                }
                // Columns read in a random order through one cursor, as an accessor reads them.
                var cursor = ColumnCursor()
                for _ in 0..<min(width * 2, 40) {
                    let column = Int.random(in: 0..<(width + 2), using: &random)
                    let checked = try? RowCodec.decodeColumnChecked(column, of: bytes)
                    let resumed = try? RowCodec.decodeColumn(column, of: bytes, cursor: &cursor)
                    #expect(String(describing: resumed) == String(describing: checked), "column \(column) after a cursor at \(cursor) (seed \(seed))")
                    // A typed read through the same cursor gives the checked value when it is of
                    // its type (always, in an intact row the fast path can walk), nil otherwise,
                    // and leaves the cursor where the next read still finds its column.
                    let typedColumn = Int.random(in: 0..<(width + 2), using: &random)
                    let expected = try? RowCodec.decodeColumnChecked(typedColumn, of: bytes)
                    let kind = Int.random(in: 0..<6, using: &random)
                    let typed = Self.typedRead(kind, typedColumn, of: bytes, cursor: &cursor)
                    if let typed {
                        #expect(String(describing: Optional(typed)) == String(describing: expected), "typed read \(kind) of column \(typedColumn) (seed \(seed))")
                    } else if !damaged && typedColumn < width, let expected {
                        #expect(Self.typedReadKind(of: expected) != kind, "typed read \(kind) of column \(typedColumn) gave nothing for \(expected) (seed \(seed))")
                    }
                }
            }
        }
    }

    @Test("in a row of 128 columns or more (a count of two bytes or three) every typed read finds its column, from the start or resumed", arguments: [127, 128, 129, 255, 1024, 16_384])
    func typedReadsOfWideRows(width: Int) {
        let row = (0..<width).map { column -> RowValue in
            switch column % 5 {
            case 0: return .int(Int64(column) * 1_000_003)
            case 1: return .string("value \(column)")
            case 2: return .double(Double(column) / 4)
            case 3: return .null
            default: return .bool(column % 2 == 0)
            }
        }
        let encoded = RowCodec.encode(row)
        encoded.withUnsafeBytes { bytes in
            var resumed = ColumnCursor()
            for (column, value) in row.enumerated() {
                let kind = Self.typedReadKind(of: value)
                #expect(Self.typedRead(kind, column, of: bytes, cursor: &resumed) == value, "column \(column) of \(width), resumed")
                // A walk from the start for a few hundred columns of the widest rows: each one
                // walks all the columns before it.
                guard column % max(1, width / 300) == 0 || column == width - 1 else { continue }
                var fresh = ColumnCursor()
                #expect(Self.typedRead(kind, column, of: bytes, cursor: &fresh) == value, "column \(column) of \(width), from the start")
                #expect((try? RowCodec.decodeColumn(column, of: bytes)) == value)
            }
            var cursor = ColumnCursor()
            #expect(RowCodec.integer(width, of: bytes, cursor: &cursor) == nil, "a column past the row's end")
        }
    }

    @Test("the columns after a string, binary or list whose length takes three bytes or more are found by every read")
    func columnsAfterLongValues() {
        let long = 1 << 14  // the first length of three varint bytes
        for first in [RowValue.string(String(repeating: "s", count: long)), .binary([UInt8](repeating: 7, count: long + 5)),
                      .list((0..<long).map { _ in .int(300) })] {
            let row: [RowValue] = [first, .int(1_000_000), .string("after"), .double(2.5)]
            let encoded = RowCodec.encode(row)
            encoded.withUnsafeBytes { bytes in
                var resumed = ColumnCursor()
                for (column, value) in row.enumerated().dropFirst() {
                    var fresh = ColumnCursor()
                    let kind = Self.typedReadKind(of: value)
                    #expect(Self.typedRead(kind, column, of: bytes, cursor: &fresh) == value, "column \(column) after \(first)")
                    #expect(Self.typedRead(kind, column, of: bytes, cursor: &resumed) == value, "column \(column), resumed")
                    #expect(RowCodec.locate(column, in: bytes) != nil, "column \(column) located")
                }
            }
        }
    }

    @Test("replacing one column splices the row into exactly what encoding the changed row writes, and says when nothing changes")
    func replacingColumn() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        for round in 0..<300 {
            let width = round % 30 == 0 ? Int.random(in: 128...160, using: &random) : Int.random(in: 1...12, using: &random)
            let row = (0..<width).map { _ in Self.samples[Int.random(in: 0..<Self.samples.count, using: &random)] }
            let column = Int.random(in: 0..<(width + 2), using: &random)
            // Now and then the value the column holds already.
            let value = column < width && Bool.random(using: &random) ? row[column] : Self.samples[Int.random(in: 0..<Self.samples.count, using: &random)]
            let encoded = RowCodec.encode(row)
            let replacement = try encoded.withUnsafeBytes { try RowCodec.replacingColumn(column, of: $0, with: value) }
            guard column < width else {
                guard case .pastTheRowsEnd = replacement else { Issue.record("column \(column) of \(width) (seed \(seed))"); continue }
                continue
            }
            var changed = row
            changed[column] = value
            switch replacement {
            case .unchanged:
                #expect(row[column].isIdentical(to: value), "unchanged, but \(row[column]) became \(value) (seed \(seed))")
            case .replaced(let bytes):
                #expect(!row[column].isIdentical(to: value), "\(value) was already there (seed \(seed))")
                #expect(bytes == RowCodec.encode(changed), "column \(column) of \(width) set to \(value) (seed \(seed))")
            case .pastTheRowsEnd:
                Issue.record("column \(column) is inside a row of \(width) (seed \(seed))")
            }
        }
        // A damaged payload before the column is reported, never copied on.
        var damaged = RowCodec.encode([.string("abc"), .int(1)])
        damaged[2] = 0x7f  // the string's length, now past the row's end
        #expect(throws: StorageError.self) {
            try damaged.withUnsafeBytes { _ = try RowCodec.replacingColumn(1, of: $0, with: .int(2)) }
        }
    }

    /// Typed read `kind` (integer, bool, double, timestamp, string, null) of `column`, as the value it
    /// read; nil when it read nothing.
    static func typedRead(_ kind: Int, _ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> RowValue? {
        switch kind {
        case 0: return RowCodec.integer(column, of: row, cursor: &cursor).map(RowValue.int)
        case 1: return RowCodec.bool(column, of: row, cursor: &cursor).map(RowValue.bool)
        case 2: return RowCodec.double(column, of: row, cursor: &cursor).map(RowValue.double)
        case 3: return RowCodec.timestamp(column, of: row, cursor: &cursor).map { .timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds) }
        case 4: return RowCodec.string(column, of: row, cursor: &cursor).map { .string(String(decoding: $0, as: UTF8.self)) }
        default: return RowCodec.isNull(column, of: row, cursor: &cursor) ? .null : nil
        }
    }

    /// The typed read that reads `value`, or -1.
    static func typedReadKind(of value: RowValue) -> Int {
        switch value {
        case .int: return 0
        case .bool: return 1
        case .double: return 2
        case .timestamp: return 3
        case .string: return 4
        case .null: return 5
        default: return -1
        }
    }

    @Test("an integer whose varint runs to a tenth byte above 1 is damage on every path")
    func oversizedVarint() throws {
        // Int64.max is nine bytes of payload; make the ninth continue into a tenth holding 2,
        // which would set bit 64: both decoders must refuse it, not drop the bit.
        var encoded = RowCodec.encode([.int(Int64.max), .int(5)])
        let payload = encoded.count - 1 - 9
        #expect(encoded[payload + 8] == 0x7f)
        encoded[payload + 8] = 0xf5
        encoded.insert(0x02, at: payload + 9)
        try encoded.withUnsafeBytes { (bytes) throws in
            #expect(throws: StorageError.self) { try RowCodec.decodeColumnChecked(0, of: bytes) }
            #expect(throws: StorageError.self) { try RowCodec.decodeColumn(0, of: bytes) }
            #expect(throws: StorageError.self) { try RowCodec.integer(0, of: bytes) }
            var cursor = ColumnCursor()
            #expect(throws: StorageError.self) { try RowCodec.decodeColumn(0, of: bytes, cursor: &cursor) }
            // The bytes after it still parse as the next column, so that column reads.
            #expect(try RowCodec.decodeColumn(1, of: bytes) == .int(5))
            #expect(try RowCodec.decodeColumnChecked(1, of: bytes) == .int(5))
        }
    }

    @Test("a varint cut off by the row's end is damage, however near the end it starts")
    func varintCutOffAtRowEnd() throws {
        // The reads take a word from the row's last eight bytes near its end, where the bytes
        // past the end read as zero: a varint whose last byte is missing must not end there.
        for prefix in [0, 3, 8] {
            for last in [RowValue.int(1 << 20), .int(-(1 << 40)), .timestamp(seconds: 1_650_000_000, nanoseconds: 0),
                         .timestamp(seconds: 7, nanoseconds: 999_999_999)] {
                let values = [RowValue.string(String(repeating: "s", count: prefix)), last]
                var encoded = RowCodec.encode(values)
                encoded.removeLast()
                try encoded.withUnsafeBytes { (bytes) throws in
                    #expect(throws: StorageError.self, "\(values)") { try RowCodec.decodeColumn(1, of: bytes) }
                    #expect(throws: StorageError.self) { try RowCodec.decodeColumnChecked(1, of: bytes) }
                    var cursor = ColumnCursor()
                    #expect(Self.typedRead(Self.typedReadKind(of: last), 1, of: bytes, cursor: &cursor) == nil)
                    // Reached from the column before it, with the cursor there.
                    cursor = ColumnCursor()
                    #expect(RowCodec.string(0, of: bytes, cursor: &cursor) != nil)
                    #expect(Self.typedRead(Self.typedReadKind(of: last), 1, of: bytes, cursor: &cursor) == nil)
                    #expect(try RowCodec.decodeColumn(0, of: bytes) == values[0])
                }
            }
        }
    }

    @Test("columns after integers of every varint length are found, with the row ending anywhere after them")
    func columnsAfterEveryVarintLength() throws {
        // Varints of 1 to 10 bytes (skipped eight bytes at a time where the row has eight
        // more), in rows that end right after them or a little later.
        var magnitudes: [Int64] = [1, 127, 128, Int64.max]
        for bits in stride(from: 7, through: 56, by: 7) {
            magnitudes += [(1 << bits) - 1, 1 << bits]
        }
        for magnitude in magnitudes {
            for number in [magnitude, -magnitude - 1] {
                for tail in [[RowValue](), [.string("x")], [.int(3), .string("after")]] {
                    // An object key takes all 64 bits: up to ten bytes.
                    let values: [RowValue] = [.int(number), .objectKey(UInt64(bitPattern: number)), .int(number)] + tail
                    try RowCodec.encode(values).withUnsafeBytes { (bytes) throws in
                        for column in values.indices {
                            #expect(try RowCodec.decodeColumn(column, of: bytes) == values[column], "\(values), column \(column)")
                            #expect(try RowCodec.decodeColumnChecked(column, of: bytes) == values[column])
                            var cursor = ColumnCursor()
                            if case .int(let expected) = values[column] {
                                #expect(RowCodec.integer(column, of: bytes, cursor: &cursor) == expected, "\(values), typed column \(column)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("a string's UTF-8 read in place is its UTF-8: small and native strings, ASCII or not, and one made from a substring")
    func utf8InPlace() {
        let long = String(repeating: "x", count: 40) + "é✓"
        var texts = ["", "a", "café", String(repeating: "a", count: 15), String(repeating: "a", count: 16), long]
        texts.append(String(long.dropFirst(3)))
        for text in texts {
            #expect(text.withUTF8InPlace { Array($0) } == Array(text.utf8), "\(text)")
        }
    }

    @Test("strings read from rows are the bytes stored, either side of the small-string length, and ill-formed bytes read as U+FFFD")
    func storedStrings() {
        // 15 bytes fit in a small string and take the other constructor: each length from
        // empty to past it, in ASCII and with a two-byte character at the end.
        for length in 0...20 {
            for text in [String(repeating: "a", count: length), String(repeating: "b", count: max(length - 2, 0)) + "é"] {
                let read = Array(text.utf8).withUnsafeBytes { String(storedUTF8: $0) }
                #expect(read == text && read.utf8.count == text.utf8.count, "\(text.utf8.count) bytes")
            }
        }
        for bytes: [UInt8] in [[0x61, 0xFF, 0x62], [0xC3], Array(repeating: 0x61, count: 15) + [0xE2, 0x82]] {
            let read = bytes.withUnsafeBytes { String(storedUTF8: $0) }
            #expect(read == String(decoding: bytes, as: UTF8.self) && read.contains("\u{FFFD}"))
        }
    }

    @Test("a small ASCII string built from its words is bit for bit the standard library's, for every length and byte, read from exactly its bytes")
    func smallASCIIStrings() throws {
        // On this platform the layout is the expected one, so the fast path is what runs.
        #expect(SmallASCIIString.isLaidOutAsExpected)
        var generator = SystemRandomNumberGenerator()
        for length in 0...15 {
            var samples: [[UInt8]] = [Array(repeating: 0, count: length), Array(repeating: 0x7F, count: length)]
            for _ in 0..<50 { samples.append((0..<length).map { _ in UInt8.random(in: 0...0x7F, using: &generator) }) }
            for bytes in samples {
                // An allocation of exactly the string's bytes: a read past them would be a read
                // past the allocation.
                let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
                defer { exact.deallocate() }
                exact.copyBytes(from: bytes)
                let built = try #require(SmallASCIIString.make(UnsafeRawBufferPointer(exact)))
                let reference = String(decoding: bytes, as: UTF8.self)
                #expect(built == reference && Array(built.utf8) == bytes, "\(bytes)")
                #expect(unsafeBitCast(built, to: (UInt64, UInt64).self) == unsafeBitCast(reference, to: (UInt64, UInt64).self), "\(bytes)")
            }
        }
        // Not ASCII, or too long for a small string: left to the public initialisers.
        for bytes: [UInt8] in [[0xC3, 0xA9], [0x61, 0x80], Array(repeating: 0x61, count: 16)] {
            #expect(bytes.withUnsafeBytes { SmallASCIIString.make($0) } == nil, "\(bytes)")
        }
    }

    @Test("lists nested as deep as mixed values go decode; a row nesting deeper is reported damaged, not a stack overflow")
    func listNesting() throws {
        func nested(_ depth: Int) -> RowValue {
            var value = RowValue.int(1)
            for _ in 0..<depth { value = .list([value]) }
            return value
        }
        for depth in [1, 201, RowCodec.maximumListNesting] {
            let encoded = RowCodec.encode([nested(depth)])
            let (row, column) = try encoded.withUnsafeBytes { try (RowCodec.decode($0), RowCodec.decodeColumn(0, of: $0)) }
            #expect(row == [nested(depth)] && column == nested(depth), "depth \(depth)")
        }
        // A forged row 20,000 lists deep, written from the outside in: each level is a row of
        // one column tagged list, whose payload is the next level's length and bytes.
        let innermost = RowCodec.encode([.int(1)])
        var lengths = [innermost.count]
        for _ in 0..<20_000 { lengths.append(2 + Self.varint(lengths.last!).count + lengths.last!) }
        var forged: [UInt8] = []
        forged.reserveCapacity(lengths.last!)
        for level in stride(from: lengths.count - 1, to: 0, by: -1) {
            forged += [1, RowCodec.Tag.list.rawValue] + Self.varint(lengths[level - 1])
        }
        forged += innermost
        forged.withUnsafeBytes { bytes in
            #expect(throws: StorageError.self) { _ = try RowCodec.decode(bytes) }
            #expect(throws: StorageError.self) { _ = try RowCodec.decodeColumn(0, of: bytes) }
        }
    }

    private static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    @Test("every value type survives commit, close and reopen", arguments: [false, true])
    func acrossReopen(reverse: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("values.realm")
        let values = reverse ? Array(Self.samples.reversed()) : Self.samples
        do {
            let database = try Database.open(path: path)
            try database.write { transaction in
                let table = transaction.createTable("values")
                // One row holding every value, and one row per value.
                try table.insert(values)
                for value in values { try table.insert([value, .int(42)]) }
            }
        }
        let reopened = try Database.open(path: path)
        let table = try reopened.snapshot().table("values")
        #expect(table.count == values.count + 1)
        #expect(try table.row(1) == values)
        for (offset, value) in values.enumerated() {
            #expect(try table.value(UInt64(offset + 2), column: 0) == value)
            #expect(try table.value(UInt64(offset + 2), column: 1) == .int(42))
        }
    }

    @Test("indexed values of every indexable type are found again after reopen")
    func indexesAcrossReopen() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("index.realm")
        let indexable = Self.samples.filter { if case .list = $0 { return false } else { return true } }
        do {
            let database = try Database.open(path: path)
            try database.write { transaction in
                let table = transaction.createTable("t")
                try table.addIndex(on: 0, unique: false)
                for value in indexable {
                    try table.insert([value])
                    try table.insert([value])
                }
            }
        }
        let table = try Database.open(path: path).snapshot().table("t")
        for value in Set(indexable) {
            let keys = try table.keys(where: 0, equals: value)
            let expected = try table.keys().filter { try table.value($0, column: 0)?.isIdentical(to: value) == true }
            #expect(keys == expected, "index lookup of \(value)")
            #expect(keys.count >= 2)
        }
    }
}
