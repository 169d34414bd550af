import Foundation
import StorageEngine

// The typed reads behind `@Persisted` getters (`_Persistable._fromCurrentRow`): a property of
// the common types is decoded straight from the object's row bytes, without a `RowValue` and the
// switch over it in `_fromStorage`. Anything these reads do not expect (a null, a column added
// after the row was written, damage) returns nil, and the general path reads it.
//
// Each is always inlined, as `Object._read` is into the model's getter: left to the optimiser,
// a getter called `_read` and `_read` called the typed read, two calls for every property read
// of a scan, each saving and restoring registers around a few loads. (The getter a model's
// property compiles to is then the whole read. Together with building small strings from their
// words, `SmallASCIIString`, realm-bench's scan went from 8.1-8.4 to 7.7-8.0 ms.)
//
// The getter reads `inPlaceOnly` first, calling nothing, and again without it when that
// returns nil (see `Object._read`). A `String` longer than a small string's 15 bytes is the
// one call on the first read, made last, when nothing is left to do after it.

extension BinaryInteger where Self: _Persistable {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Self? {
        guard let number = RowCodec.integer(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly) else { return nil }
        return Self(exactly: number)
    }
}

extension Int {
    /// `Int`'s own read, the same as the generic one above: an `Int` property reached the
    /// generic one through a thunk, on every read of the most common property type.
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Int? {
        guard let number = RowCodec.integer(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly) else { return nil }
        return Int(exactly: number)
    }
}

extension Bool {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Bool? {
        RowCodec.bool(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly)
    }
}

extension Double {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Double? {
        RowCodec.double(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly)
    }
}

extension Date {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Date? {
        guard let (seconds, nanoseconds) = RowCodec.timestamp(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly) else { return nil }
        return Date(storedSeconds: seconds, nanoseconds: nanoseconds)
    }
}

extension String {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> String? {
        guard let bytes = RowCodec.string(column, of: row, cursor: &object.__rowCursor, inPlaceOnly: inPlaceOnly) else { return nil }
        // The layout check's result is the realm's (`buildsSmallASCIIStrings`): read from the
        // standard library's global, it took a call per string.
        return String(storedUTF8: bytes, smallASCIILaidOutAsExpected: realm.buildsSmallASCIIStrings)
    }
}

extension Optional where Wrapped: _PersistableInsideOptional {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Self? {
        if inPlaceOnly {
            if RowCodec.isNullInPlace(column, of: row, cursor: &object.__rowCursor) { return .some(nil) }
        } else if RowCodec.isNull(column, of: row, cursor: &object.__rowCursor) {
            return .some(nil)
        }
        return Wrapped._fromCurrentRow(row, of: object, column: column, inPlaceOnly: inPlaceOnly, realm: realm).map { .some($0) }
    }
}

extension PersistableEnum {
    @inlinable @inline(__always)
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Self? {
        RawValue._fromCurrentRow(row, of: object, column: column, inPlaceOnly: inPlaceOnly, realm: realm).flatMap(Self.init(rawValue:))
    }
}
