/// A value in a row: the value types of the object layer.
package enum Value: Sendable, Hashable {
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
    case list([Value])
}
