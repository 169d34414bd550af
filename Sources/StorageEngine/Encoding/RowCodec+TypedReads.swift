/// Reads of one column by a caller that knows the type it expects (an accessor's property):
/// the payload decoded straight to that type, without building a `RowValue`.
///
/// Each read starts its walk from `cursor` and leaves it at the column read, as
/// `decodeColumn(_:of:cursor:)` does. Each returns nil for anything but a payload of its
/// type: null, a column past the row's end, another type, or bytes that do not add up. The
/// caller then takes the general path, which reads nulls and reports damage.
///
/// With `inPlaceOnly`, a read also returns nil where it would call a function: for a column
/// that is neither the first nor the one after the cursor's (which takes a walk from the
/// row's header), and for a varint longer than a word (read byte by byte). An accessor's
/// getter reads that way, and reads again without it when it gets nil (`Object._read`): a
/// getter whose usual path calls nothing needs no registers saved and restored around it.
extension RowCodec {
    @inlinable @inline(__always)
    package static func integer(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool = false) -> Int64? {
        read(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) { tag, offset, end in
            // A one-byte number (an age, a count) here, without the call.
            if tag == Tag.positive.rawValue, offset < row.count, row[offset] < 0x80 {
                end = offset &+ 1
                return Int64(row[offset])
            }
            guard tag == Tag.zero.rawValue || tag == Tag.positive.rawValue || tag == Tag.negative.rawValue else { return nil }
            return integerPayload(tag: tag, offset: offset, in: row, end: &end, inPlaceOnly: inPlaceOnly)
        }
    }

    @inlinable @inline(__always)
    package static func bool(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool = false) -> Bool? {
        read(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) { tag, offset, end in
            guard tag == Tag.false.rawValue || tag == Tag.true.rawValue else { return nil }
            end = offset
            return tag == Tag.true.rawValue
        }
    }

    @inlinable @inline(__always)
    package static func double(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool = false) -> Double? {
        read(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) { tag, offset, end in
            tag == Tag.double.rawValue ? doublePayload(offset: offset, in: row, end: &end) : nil
        }
    }

    @inlinable @inline(__always)
    package static func timestamp(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool = false) -> (seconds: Int64, nanoseconds: Int32)? {
        read(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) { tag, offset, end in
            tag == Tag.timestamp.rawValue ? timestampPayload(offset: offset, in: row, end: &end, inPlaceOnly: inPlaceOnly) : nil
        }
    }

    /// A string's UTF-8 bytes, in place.
    @inlinable @inline(__always)
    package static func string(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool = false) -> UnsafeRawBufferPointer? {
        read(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) { tag, offset, end in
            tag == Tag.string.rawValue ? stringPayload(offset: offset, in: row, end: &end, inPlaceOnly: inPlaceOnly) : nil
        }
    }

    /// `locate`, called from the typed reads inlined into other modules: a walk past columns,
    /// which the usual read in order does not need.
    @usableFromInline
    static func locateOutOfLine(_ column: Int, in row: UnsafeRawBufferPointer, from cursor: ColumnCursor) -> (tag: UInt8, offset: Int)? {
        locate(column, in: row, from: cursor)
    }

    /// Whether column `column` holds null; false for a column past the row's end (the general
    /// path reads it as null) and for anything that does not add up.
    @usableFromInline
    package static func isNull(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> Bool {
        guard let (tag, offset) = locate(column, in: row, from: cursor) else { return false }
        // Not null: the cursor still moves to the column, so the typed read after this one
        // finds it without a walk.
        cursor = ColumnCursor(column: column, offset: offset, end: tag == Tag.null.rawValue ? offset : 0)
        return tag == Tag.null.rawValue
    }

    /// Whether column `column` holds null, found in place (see `inPlaceOnly` above): true moves
    /// the cursor past it; false, for a value or a column found only by a walk, leaves the
    /// cursor where it was, for the typed read that follows.
    @inlinable @inline(__always)
    package static func isNullInPlace(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> Bool {
        let null: Bool? = read(column, of: row, cursor: &cursor, inPlaceOnly: true) { tag, offset, end in
            guard tag == Tag.null.rawValue else { return nil }
            end = offset
            return true
        }
        return null ?? false
    }

    /// Locates column `column` from `cursor` and decodes it with `decode`, which gets the tag
    /// and the payload's offset and sets where the payload ends; moves `cursor` to the column
    /// when `decode` returns a value. With `inPlaceOnly`, a column that takes a walk to find
    /// returns nil.
    @inlinable @inline(__always)
    static func read<T>(
        _ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, inPlaceOnly: Bool,
        _ decode: (_ tag: UInt8, _ offset: Int, _ end: inout Int) -> T?
    ) -> T? {
        var tag: UInt8 = 0
        var offset = 0
        // The first column, or the column after the last one read, the way an object's
        // properties are read: its payload starts where the tags end, or where that one ended,
        // and only its tag is left to find. (A row of 128 columns or more, whose count takes
        // two bytes, takes the walk.)
        if !row.isEmpty, row[0] < 0x80, column < Int(row[0]) {
            if column == 0 {
                offset = 1 &+ (Int(row[0]) &+ 1) &>> 1
            } else if cursor.end > 0, cursor.column &+ 1 == column {
                offset = cursor.end
            }
            if offset > 0, offset <= row.count {
                let byte = row[1 &+ column &>> 1]
                tag = column & 1 == 0 ? byte & 0x0f : byte &>> 4
                guard offset < row.count || tag <= Tag.zero.rawValue else { return nil }
            } else {
                offset = 0
            }
        }
        if offset == 0 {
            guard !inPlaceOnly, let located = locateOutOfLine(column, in: row, from: cursor) else { return nil }
            (tag, offset) = located
        }
        var end = 0
        guard let value = decode(tag, offset, &end) else { return nil }
        cursor = ColumnCursor(column: column, offset: offset, end: end)
        return value
    }
}
