import Foundation
import StorageEngine

// The typed reads behind `@Persisted` getters (`_Persistable._fromCurrentRow`): a property of
// the common types is decoded straight from the object's row bytes, without a `RowValue` and the
// switch over it in `_fromStorage`. Anything these reads do not expect (a row read at an
// older version, a null, a column added after the row was written, damage) returns nil, and
// the general path reads it.
//
// Each is always inlined, as `Object._read` is into the model's getter: left to the optimiser,
// a getter called `_read` and `_read` called the typed read, two calls for every property read
// of a scan, each saving and restoring registers around a few loads. (The getter a model's
// property compiles to is then the whole read. Together with building small strings from their
// words, `SmallASCIIString`, realm-bench's scan went from 8.1-8.4 to 7.7-8.0 ms.)

extension BinaryInteger where Self: _Persistable {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Self? {
        guard let row = object._currentRow(in: realm),
              let number = RowCodec.integer(column, of: row, cursor: &object.__rowCursor) else { return nil }
        return Self(exactly: number)
    }
}

extension Int {
    /// `Int`'s own read, the same as the generic one above: an `Int` property reached the
    /// generic one through a thunk, on every read of the most common property type.
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Int? {
        guard let row = object._currentRow(in: realm),
              let number = RowCodec.integer(column, of: row, cursor: &object.__rowCursor) else { return nil }
        return Int(exactly: number)
    }
}

extension Bool {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Bool? {
        guard let row = object._currentRow(in: realm) else { return nil }
        return RowCodec.bool(column, of: row, cursor: &object.__rowCursor)
    }
}

extension Double {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Double? {
        guard let row = object._currentRow(in: realm) else { return nil }
        return RowCodec.double(column, of: row, cursor: &object.__rowCursor)
    }
}

extension Date {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Date? {
        guard let row = object._currentRow(in: realm),
              let (seconds, nanoseconds) = RowCodec.timestamp(column, of: row, cursor: &object.__rowCursor) else { return nil }
        return Date(storedSeconds: seconds, nanoseconds: nanoseconds)
    }
}

extension String {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> String? {
        guard let row = object._currentRow(in: realm),
              let bytes = RowCodec.string(column, of: row, cursor: &object.__rowCursor) else { return nil }
        return String(storedUTF8: bytes)
    }
}

extension Optional where Wrapped: _PersistableInsideOptional {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Self? {
        guard let row = object._currentRow(in: realm) else { return nil }
        if RowCodec.isNull(column, of: row, cursor: &object.__rowCursor) { return .some(nil) }
        return Wrapped._fromCurrentRow(of: object, column: column, realm: realm).map { .some($0) }
    }
}

extension PersistableEnum {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(of object: Object, column: Int, realm: Realm) -> Self? {
        RawValue._fromCurrentRow(of: object, column: column, realm: realm).flatMap(Self.init(rawValue:))
    }
}
