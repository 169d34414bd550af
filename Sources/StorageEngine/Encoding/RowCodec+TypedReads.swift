/// Reads of one column by a caller that knows the type it expects (an accessor's property):
/// the payload decoded straight to that type, without building a `RowValue`.
///
/// Each read starts its walk from `cursor` and leaves it at the column read, as
/// `decodeColumn(_:of:cursor:)` does. Each returns nil for anything but a payload of its
/// type: null, a column past the row's end, another type, or bytes that do not add up. The
/// caller then takes the general path, which reads nulls and reports damage.
extension RowCodec {
    @inlinable @inline(__always)
    package static func integer(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> Int64? {
        read(column, of: row, cursor: &cursor) { tag, offset, end in
            // A one-byte number (an age, a count) here, without the call.
            if tag == Tag.positive.rawValue, offset < row.count, row[offset] < 0x80 {
                end = offset &+ 1
                return Int64(row[offset])
            }
            guard tag == Tag.zero.rawValue || tag == Tag.positive.rawValue || tag == Tag.negative.rawValue else { return nil }
            return integerPayload(tag: tag, offset: offset, in: row, end: &end)
        }
    }

    @inlinable @inline(__always)
    package static func bool(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> Bool? {
        read(column, of: row, cursor: &cursor) { tag, offset, end in
            guard tag == Tag.false.rawValue || tag == Tag.true.rawValue else { return nil }
            end = offset
            return tag == Tag.true.rawValue
        }
    }

    @inlinable @inline(__always)
    package static func double(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> Double? {
        read(column, of: row, cursor: &cursor) { tag, offset, end in
            tag == Tag.double.rawValue ? doublePayload(offset: offset, in: row, end: &end) : nil
        }
    }

    @inlinable @inline(__always)
    package static func timestamp(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> (seconds: Int64, nanoseconds: Int32)? {
        read(column, of: row, cursor: &cursor) { tag, offset, end in
            tag == Tag.timestamp.rawValue ? timestampPayload(offset: offset, in: row, end: &end) : nil
        }
    }

    /// A string's UTF-8 bytes, in place.
    @inlinable @inline(__always)
    package static func string(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) -> UnsafeRawBufferPointer? {
        read(column, of: row, cursor: &cursor) { tag, offset, end in
            tag == Tag.string.rawValue ? stringPayload(offset: offset, in: row, end: &end) : nil
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

    /// Locates column `column` from `cursor` and decodes it with `decode`, which gets the tag
    /// and the payload's offset and sets where the payload ends; moves `cursor` to the column
    /// when `decode` returns a value.
    @inlinable @inline(__always)
    static func read<T>(
        _ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor,
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
            guard let located = locateOutOfLine(column, in: row, from: cursor) else { return nil }
            (tag, offset) = located
        }
        var end = 0
        guard let value = decode(tag, offset, &end) else { return nil }
        cursor = ColumnCursor(column: column, offset: offset, end: end)
        return value
    }
}
