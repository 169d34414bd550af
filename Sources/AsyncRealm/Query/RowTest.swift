import Foundation
import StorageEngine

/// A comparison of one of the object's own columns with constants, made on the stored row
/// itself: an integer column against integer constants, or an ASCII string test. Nothing is
/// decoded that is not compared, and no `String` is made.
///
/// Worked out once, when the comparison is bound (`BoundComparison.rowTest`): testing rows then
/// needs nothing built per query. The few candidates of an indexed query are tested by walking
/// the predicate (`QueryEvaluator.matchesOnRow`); a scan compiles the predicate into closures
/// once (`QueryEvaluator.compileOnRows`), which call the same tests.
enum RowTest: Sendable {
    case integer(column: Int, IntegerTest, nilHolds: Bool)
    case asciiString(ASCIIStringTest)

    /// The row test of `direct` compared by `op`, or nil if it has none.
    init?(_ direct: BoundComparison.Direct, op: QueryComparison.Operator, caseInsensitive: Bool, diacriticInsensitive: Bool) {
        // (The type first: a query makes its tests every time it runs.)
        if direct.type == .int, let test = IntegerTest(direct, op: op) {
            // A nil (or missing) value equals no integer and orders with none: only != holds.
            self = .integer(column: direct.column, test, nilHolds: op == .notEqual)
        } else if direct.type == .string, let test = ASCIIStringTest(direct, op: op, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) {
            self = .asciiString(test)
        } else {
            return nil
        }
    }

    /// Whether `row` passes; `comparison` is the comparison this test was made for.
    @inline(__always)
    func matches(_ row: RowView, _ comparison: BoundComparison) throws -> Bool {
        switch self {
        case .integer(let column, let test, let nilHolds):
            return try test.matches(row, column: column, nilHolds: nilHolds)
        case .asciiString(let test):
            return try test.matches(row, comparison)
        }
    }
}

/// The test of an integer column against integer constants.
enum IntegerTest: Sendable {
    case equal(Int64), notEqual(Int64), less(Int64), lessOrEqual(Int64), greater(Int64), greaterOrEqual(Int64)
    case between(Int64, Int64)
    case `in`(Set<Int64>)

    /// The test of `direct` compared by `op`, or nil unless it compares an integer column with
    /// integer constants.
    init?(_ direct: BoundComparison.Direct, op: QueryComparison.Operator) {
        guard direct.type == .int else { return nil }
        func integer(_ scalar: QueryScalar) -> Int64? {
            if case .int(let number) = scalar { return number }
            return nil
        }
        let constants = direct.constants
        if op == .in {
            var set = Set<Int64>()
            for constant in constants {
                guard let number = integer(constant) else { return nil }
                set.insert(number)
            }
            self = .in(set)
            return
        }
        if op == .between {
            guard constants.count == 2, let low = integer(constants[0]), let high = integer(constants[1]) else { return nil }
            self = .between(low, high)
            return
        }
        guard constants.count == 1, let c = integer(constants[0]) else { return nil }
        switch op {
        case .equal: self = .equal(c)
        case .notEqual: self = .notEqual(c)
        case .less: self = .less(c)
        case .lessOrEqual: self = .lessOrEqual(c)
        case .greater: self = .greater(c)
        case .greaterOrEqual: self = .greaterOrEqual(c)
        default: return nil
        }
    }

    /// Whether `column` of `row` passes; `nilHolds` when it holds nil or nothing.
    @inline(__always)
    func matches(_ row: RowView, column: Int, nilHolds: Bool) throws -> Bool {
        guard let value = try row.integer(column) else { return nilHolds }
        return holds(value)
    }

    /// The values this test holds for, as one closed range; nil for `!=`, `IN` and a test
    /// no integer passes.
    var bounds: ClosedRange<Int64>? {
        switch self {
        case .equal(let c): c...c
        case .less(let c): c == .min ? nil : Int64.min...(c - 1)
        case .lessOrEqual(let c): Int64.min...c
        case .greater(let c): c == .max ? nil : (c + 1)...Int64.max
        case .greaterOrEqual(let c): c...Int64.max
        case .between(let low, let high): low <= high ? low...high : nil
        case .notEqual, .in: nil
        }
    }

    @inline(__always)
    func holds(_ value: Int64) -> Bool {
        switch self {
        case .equal(let c): value == c
        case .notEqual(let c): value != c
        case .less(let c): value < c
        case .lessOrEqual(let c): value <= c
        case .greater(let c): value > c
        case .greaterOrEqual(let c): value >= c
        case .between(let low, let high): value >= low && value <= high
        case .in(let set): set.contains(value)
        }
    }
}

/// `==`, `!=`, `BEGINSWITH`, `ENDSWITH` or `CONTAINS` of a string column with an ASCII
/// constant, optionally case-insensitive, on the stored bytes; a stored value that is not ASCII
/// is compared as a `String`, the way the general path compares it.
///
/// Through a folding table (identity, or ASCII upper case to lower case) in plain loops, a
/// closure per position costing more than the comparisons; the ASCII check and the search for
/// a `CONTAINS` needle's first byte take eight bytes at a time (`ASCIIBytes`). The needle is
/// kept as a `String` (the constant itself unless folded) and the tables are made once for the
/// process: a test is made for every query run, and an array of the needle's bytes, a class
/// around it and their frees were a sixth of a one-probe indexed query. A scan takes the
/// needle's bytes out once (`compiled(_:)`): reaching them in the string for every row cost a
/// fifth more than the whole `CONTAINS` scan.
struct ASCIIStringTest: Sendable {
    let column: Int
    let op: QueryComparison.Operator
    let lowercase: Bool
    /// The constant, folded: ASCII, so its UTF-8 bytes are its characters.
    let needle: String
    let fold: FoldTable

    /// A byte map, made once and never freed.
    struct FoldTable: @unchecked Sendable {
        let bytes: UnsafeBufferPointer<UInt8>

        init(_ map: (UInt8) -> UInt8) {
            let table = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
            for byte in 0...255 { table[byte] = map(UInt8(byte)) }
            bytes = UnsafeBufferPointer(table)
        }

        /// Each byte to itself, or upper-case letters to lower.
        static let identity = FoldTable { $0 }
        static let lowercase = FoldTable { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    init?(_ direct: BoundComparison.Direct, op: QueryComparison.Operator, caseInsensitive: Bool, diacriticInsensitive: Bool) {
        guard direct.type == .string, !diacriticInsensitive,
              op == .equal || op == .notEqual || op == .beginsWith || op == .endsWith || op == .contains,
              direct.constants.count == 1, case .string(var pattern) = direct.constants[0] else { return nil }
        let fold = caseInsensitive ? FoldTable.lowercase : FoldTable.identity
        guard pattern.withUTF8InPlace({ ASCIIBytes.isASCII(UnsafeRawBufferPointer($0)) }) else { return nil }
        if caseInsensitive {
            pattern = String(unsafeUninitializedCapacity: pattern.utf8.count) { folded in
                pattern.withUTF8InPlace { bytes in
                    for index in bytes.indices { folded[index] = fold.bytes[Int(bytes[index])] }
                }
                return pattern.utf8.count
            }
        }
        column = direct.column
        self.op = op
        lowercase = caseInsensitive
        needle = pattern
        self.fold = fold
    }

    /// Whether `row` passes; `comparison` is the comparison this test was made for.
    @inline(__always)
    func matches(_ row: RowView, _ comparison: BoundComparison) throws -> Bool {
        try needle.withUTF8InPlace { try matches(row, comparison, needle: $0) }
    }

    /// The test as a scan calls it for each row, the needle's bytes taken out of it once.
    func compiled(_ comparison: BoundComparison) -> (RowView) throws -> Bool {
        let needle = Array(needle.utf8)
        return { row in try needle.withUnsafeBufferPointer { try matches(row, comparison, needle: $0) } }
    }

    /// The test as a scan of packed columns calls it for each row's string bytes (nil where
    /// the row holds no string).
    func compiledOnBytes(_ comparison: BoundComparison) -> (UnsafeRawBufferPointer?) -> Bool {
        let needle = Array(needle.utf8)
        return { bytes in needle.withUnsafeBufferPointer { matches(bytes, comparison, needle: $0) } }
    }

    @inline(__always)
    private func matches(_ row: RowView, _ comparison: BoundComparison, needle: UnsafeBufferPointer<UInt8>) throws -> Bool {
        matches(try row.stringBytes(column), comparison, needle: needle)
    }

    @inline(__always)
    private func matches(_ bytes: UnsafeRawBufferPointer?, _ comparison: BoundComparison, needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let bytes else { return op == .notEqual }
        // The same bytes are the same string, ASCII or not: what an index's candidate for
        // `==` usually holds, decided without looking at its characters.
        if !lowercase, op == .equal || op == .notEqual, bytes.count == needle.count,
           bytes.isEmpty || memcmp(bytes.baseAddress!, needle.baseAddress!, needle.count) == 0 {
            return op == .equal
        }
        guard ASCIIBytes.isASCII(bytes) else {
            // Not ASCII: compare as strings, the way the general path does.
            let value = QueryScalar.string(String(decoding: bytes, as: UTF8.self))
            return QueryEvaluator.single(value, comparison, comparison.direct!.constants[0])
        }
        let fold = fold.bytes
        let length = needle.count
        @inline(__always) func matches(at start: Int) -> Bool {
            ASCIIBytes.matches(needle, in: bytes, at: start, fold: fold)
        }
        switch op {
        case .equal: return bytes.count == length && matches(at: 0)
        case .notEqual: return !(bytes.count == length && matches(at: 0))
        default:
            guard length <= bytes.count else { return false }
            switch op {
            case .beginsWith: return matches(at: 0)
            case .endsWith: return matches(at: bytes.count - length)
            default: return ASCIIBytes.contains(needle, in: bytes, fold: fold, lowercase: lowercase)
            }
        }
    }
}
