/// A value in a row: the value types of the object layer.
package enum RowValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    /// Seconds since 1970 and the nanoseconds within that second (0..<1e9).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// The 16 bytes of a UUID, first byte most significant.
    case uuid(UInt128)
    /// The key of a row in another (or the same) table.
    case objectKey(UInt64)
    /// An ordered list of object keys or of primitives.
    case list([RowValue])
}

extension RowValue {
    /// Whether the two values are stored alike: strings by their UTF-8 bytes, so that two
    /// strings Swift's `==` calls equal by canonical equivalence (`"caf\u{E9}"`,
    /// `"cafe\u{301}"`) are two values, as the object layer's queries, indexes and primary
    /// keys tell them apart; floating-point numbers by their bits (-0.0 is not 0.0, a NaN is
    /// itself). An update that changes a value to one `==` to it still changes it.
    package func isIdentical(to other: RowValue) -> Bool {
        switch (self, other) {
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        default: return self == other
        }
    }
}
