import Foundation
import StorageEngine

/// A value as queries compare it: stored values and constants meet in this form, so that an
/// `Int` property compares with a `Double` constant, a `Date` with a timestamp, and so on.
enum QueryScalar: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case data([UInt8])
    case date(seconds: Int64, nanoseconds: Int32)
    case uuid(UInt128)
    case objectId([UInt8])
    case object(UInt64)
    /// An object held in an `AnyRealmValue`, which may be of any class: its class and key (row
    /// keys are per class, so the key alone would make two classes' objects equal).
    case mixedObject(className: String, key: UInt64)
    /// A list or dictionary held in an `AnyRealmValue`: equal to no constant, and ordered
    /// against none.
    case collection

    /// A stored value of a property of `type`.
    init(stored value: RowValue, type: PropertyType) {
        if type == .any {
            self.init(mixed: MixedValue(stored: value))
            return
        }
        switch (value, type) {
        case (.null, _): self = .null
        case (.bool(let flag), _): self = .bool(flag)
        case (.int(let number), _): self = .int(number)
        case (.float(let number), _): self = .double(Double(number))
        case (.double(let number), _): self = .double(number)
        case (.string(let text), .decimal128):
            self = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(QueryScalar.decimal) ?? .null
        case (.string(let text), _): self = .string(text)
        case (.binary(let bytes), .objectId): self = .objectId(bytes)
        case (.binary(let bytes), _): self = .data(bytes)
        case (.timestamp(let seconds, let nanoseconds), _): self = .date(seconds: seconds, nanoseconds: nanoseconds)
        case (.uuid(let bits), _): self = .uuid(bits)
        case (.objectKey(let key), _): self = .object(key)
        case (.list, _): self = .null
        }
    }

    /// A stored `AnyRealmValue`.
    private init(mixed: MixedValue) {
        switch mixed {
        case .none, .malformed: self = .null
        case .value(let value): self.init(stored: value, type: .string)
        case .objectId(let bytes): self = .objectId(bytes)
        case .decimal(let decimal): self = .decimal(decimal)
        case .object(let className, let key): self = .mixedObject(className: className, key: key)
        case .list, .dictionary: self = .collection
        }
    }

    /// Where values of this kind sort among values of other kinds (an `AnyRealmValue` column
    /// holds many): nil, booleans, numbers, strings, data, dates, object ids, UUIDs, objects,
    /// lists and dictionaries.
    var kindRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .double, .decimal: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .objectId: 6
        case .uuid: 7
        case .object, .mixedObject: 8
        case .collection: 9
        }
    }

    /// A query constant. Objects must already be checked to be of the right class.
    init(constant value: QueryValue) {
        switch value {
        case .null, .list: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .string(let text): self = .string(text)
        case .data(let data): self = .data(Array(data))
        case .date(let date):
            guard case .timestamp(let seconds, let nanoseconds) = date.storedTimestamp else { self = .null; return }
            self = .date(seconds: seconds, nanoseconds: nanoseconds)
        case .uuid(let uuid): self = .uuid(uuid.storedBits)
        case .objectId(let id): self = .objectId(id.bytes)
        case .object(_, let key): self = .object(key)
        case .argument(let index): stop("argument \(index + 1) of a query template was not given its value before binding")
        }
    }

    /// The value as the Swift type a property of `type` holds (for aggregates' results).
    func swiftValue(type: PropertyType) -> Any? {
        switch self {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .double(let number): return type == .float ? Float(number) : number
        case .decimal(let number): return number
        case .string(let text): return text
        case .data(let bytes): return Data(bytes)
        case .date(let seconds, let nanoseconds): return Date(storedSeconds: seconds, nanoseconds: nanoseconds)
        case .uuid(let bits):
            let bytes = (0..<16).map { UInt8(truncatingIfNeeded: bits >> UInt128(8 * (15 - $0))) }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        case .objectId(let bytes): return ObjectId(bytes: bytes)
        case .object(let key), .mixedObject(_, let key): return key
        case .collection: return nil
        }
    }

    var isNumeric: Bool {
        switch self {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    /// Whether an aggregate (`min`, `max`, `sum`, `average`, `@min` and the rest) counts this
    /// value: not null, and not NaN, which Realm's aggregates leave out as they leave out null.
    var isAggregated: Bool {
        switch self {
        case .null: return false
        case .double(let number): return !number.isNaN
        case .decimal(let number): return !number.isNaN
        default: return true
        }
    }

    /// A number as a `Double` (an integer or a decimal converted to the nearest); nil for
    /// anything else.
    var numericDouble: Double? {
        switch self {
        case .int(let number): Double(number)
        case .double(let number): number
        case .decimal(let number): number.isNaN ? .nan : NSDecimalNumber(decimal: number).doubleValue
        default: nil
        }
    }

    private var decimalValue: Decimal? {
        switch self {
        case .int(let number): return Decimal(number)
        case .double(let number): return Decimal(number)
        case .decimal(let number): return number
        default: return nil
        }
    }

    /// The order of two values: negative, zero or positive; nil when they do not compare (a
    /// null, or values of kinds that do not order against each other).
    static func order(_ left: QueryScalar, _ right: QueryScalar) -> Int? {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a < b ? -1 : a == b ? 0 : 1
        case (.int(let a), .double(let b)): return compare(Double(a), b)
        case (.double(let a), .int(let b)): return compare(a, Double(b))
        case (.double(let a), .double(let b)): return compare(a, b)
        case (.decimal, _) where right.isNumeric, (_, .decimal) where left.isNumeric:
            let a = left.decimalValue!, b = right.decimalValue!
            if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : -1) : 1 }
            return a < b ? -1 : a == b ? 0 : 1
        case (.string(let a), .string(let b)): return compareBytes(a, b)
        case (.data(let a), .data(let b)), (.objectId(let a), .objectId(let b)):
            return a.lexicographicallyPrecedes(b) ? -1 : a == b ? 0 : 1
        case (.date(let s1, let n1), .date(let s2, let n2)):
            return (s1, n1) < (s2, n2) ? -1 : (s1, n1) == (s2, n2) ? 0 : 1
        case (.uuid(let a), .uuid(let b)): return a < b ? -1 : a == b ? 0 : 1
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.object(let a), .object(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.mixedObject(let c1, let k1), .mixedObject(let c2, let k2)):
            return c1 != c2 ? compareBytes(c1, c2) : k1 == k2 ? 0 : (k1 < k2 ? -1 : 1)
        default: return nil
        }
    }

    /// Strings in the order of their UTF-8 bytes (which is the order of their code points), as
    /// Realm compares them: `"caf\u{E9}"` and `"cafe\u{301}"`, which Swift's `==` calls equal,
    /// are two strings here, as they are to an index and a primary key (`Docs/Limits.md`).
    static func compareBytes(_ a: String, _ b: String) -> Int {
        a.withUTF8InPlace { left in
            b.withUTF8InPlace { right in
                let common = Swift.min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let compared = memcmp(l, r, common)
                    if compared != 0 { return compared < 0 ? -1 : 1 }
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
    }

    /// Numbers in one total order, as Realm sorts them: NaN before every other number and equal
    /// to itself. Sorting, `==`, `<` and the rest, `BETWEEN`, `min` and `max` all use it
    /// (`Docs/Limits.md`), so none of them disagrees with another about where NaN belongs.
    private static func compare(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : -1) : 1 }
        return a < b ? -1 : a == b ? 0 : 1
    }

    /// Equality as `==` in a query means it: numbers of any kind by value, null equal to null.
    static func equal(_ left: QueryScalar, _ right: QueryScalar) -> Bool {
        if left == .null || right == .null { return left == right }
        return order(left, right) == 0
    }
}

extension Decimal {
    /// `wide` exactly: a sum of integers past Int64 (38 significant digits hold every Int128).
    init(_ wide: Int128) {
        self = Decimal(string: String(wide), locale: Locale(identifier: "en_US_POSIX"))!
    }
}

/// A value as `DISTINCT` tells values apart: by the same equality as `==` in a query (strings
/// by their bytes, NaN equal to NaN, -0.0 equal to 0.0, numbers of any kind by value: the
/// `AnyRealmValue`s `.int(1)` and `.double(1)` are one value), where `QueryScalar`'s own `==`
/// follows Swift's.
struct DistinctValue: Hashable {
    let scalar: QueryScalar

    static func == (left: DistinctValue, right: DistinctValue) -> Bool {
        switch (left.scalar, right.scalar) {
        case (.string(let a), .string(let b)): return QueryScalar.compareBytes(a, b) == 0
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.int, _), (.double, _), (.decimal, _):
            return right.scalar.isNumeric ? QueryScalar.equal(left.scalar, right.scalar) : false
        default: return left.scalar == right.scalar
        }
    }

    func hash(into hasher: inout Hasher) {
        switch scalar {
        case .string(let text):
            hasher.combine(0 as UInt8)
            for byte in text.utf8 { hasher.combine(byte) }
        case .int, .double, .decimal:
            // Numbers equal by value hash alike: each as a `Double` (which hashes -0.0 as 0.0),
            // every NaN as one.
            let number = scalar.numericDouble ?? .nan
            if number.isNaN {
                hasher.combine(1 as UInt8)
            } else {
                hasher.combine(2 as UInt8)
                hasher.combine(number)
            }
        default:
            hasher.combine(scalar)
        }
    }
}
