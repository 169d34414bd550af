/// Encodes rows so that one column can be read without decoding the others.
///
/// Layout: column count (varint); one 4-bit type tag per column, two per byte, low nibble
/// first; then each column's payload in order. A reader finds column `c` by skipping the
/// payloads before it, whose lengths follow from their tags, without building their values.
/// Small non-negative integers cost one payload byte and zero costs none, which is most of
/// what rows hold.
@usableFromInline
package enum RowCodec {
    @usableFromInline
    enum Tag: UInt8 {
        case null = 0, `false`, `true`, zero, positive, negative, float, double
        case string, binary, timestamp, uuid, objectKey, list
    }

    package static func encode(_ values: [RowValue]) -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + values.count * 3)
        encode(values, into: &writer)
        return writer.bytes
    }

    package static func encode(_ values: [RowValue], into writer: inout some ByteSink) {
        // Through the array's buffer: iterating the array copied each value out (counting a
        // reference to its string, and a call to copy and one to destroy the enum).
        values.withUnsafeBufferPointer { values in
            writer.appendVarint(UInt64(values.count))
            var index = 0
            while index < values.count {
                let low = tag(of: values[index]).rawValue
                let high = index + 1 < values.count ? tag(of: values[index + 1]).rawValue : 0
                writer.append(low | high << 4)
                index += 2
            }
            for index in values.indices { encodePayload(values[index], into: &writer) }
        }
    }

    /// Encodes a row of one column, `value`, as `encode([value], into:)` does without building
    /// the array: how index buckets store their values.
    package static func encode(single value: RowValue, into writer: inout some ByteSink) {
        writer.append(1)
        writer.append(tag(of: value).rawValue)
        encodePayload(value, into: &writer)
    }

    private static func tag(of value: RowValue) -> Tag {
        switch value {
        case .null: return .null
        case .bool(let flag): return flag ? .true : .false
        case .int(let number): return number == 0 ? .zero : (number > 0 ? .positive : .negative)
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .binary: return .binary
        case .timestamp: return .timestamp
        case .uuid: return .uuid
        case .objectKey: return .objectKey
        case .list: return .list
        }
    }

    private static func encodePayload(_ value: RowValue, into writer: inout some ByteSink) {
        switch value {
        case .null, .bool: break
        case .int(let number):
            if number > 0 { writer.appendVarint(UInt64(number)) }
            // ~number maps -1 to 0 and Int64.min to Int64.max without overflow.
            else if number < 0 { writer.appendVarint(UInt64(~number)) }
        case .float(let number): writer.appendUInt32(number.bitPattern)
        case .double(let number): writer.appendUInt64(number.bitPattern)
        case .string(let text):
            func write(_ utf8: UnsafeBufferPointer<UInt8>) {
                writer.appendVarint(UInt64(utf8.count))
                writer.append(UnsafeRawBufferPointer(utf8))
            }
            text.withUTF8InPlace(write)
        case .binary(let bytes):
            writer.appendVarint(UInt64(bytes.count))
            bytes.withUnsafeBytes { writer.append($0) }
        case .timestamp(let seconds, let nanoseconds):
            writer.appendVarint(UInt64(bitPattern: (seconds << 1) ^ (seconds >> 63)))
            writer.appendVarint(UInt64(UInt32(bitPattern: nanoseconds)))
        case .uuid(let value):
            writer.appendUInt64(UInt64(truncatingIfNeeded: value >> 64).bigEndian.littleEndian)
            writer.appendUInt64(UInt64(truncatingIfNeeded: value).bigEndian.littleEndian)
        case .objectKey(let key): writer.appendVarint(key)
        case .list(let elements):
            var nested = ByteWriter(capacity: elements.count * 3 + 4)
            encode(elements, into: &nested)
            writer.appendVarint(UInt64(nested.count))
            nested.bytes.withUnsafeBytes { writer.append($0) }
        }
    }

    /// At most how many bytes `encode(values, into:)` writes, with the ten bytes of slack an
    /// `UnsafeByteWriter` asks for before a varint.
    static func maximumEncodedSize(_ values: [RowValue]) -> Int {
        // Through the buffer, as `encode` does: iterating the array copied each value out.
        values.withUnsafeBufferPointer { values in
            var size = 10 + (values.count + 1) / 2
            for index in values.indices { size += maximumPayloadSize(values[index]) }
            return size
        }
    }

    /// At most how many bytes `encode(single:into:)` writes, as `maximumEncodedSize`.
    static func maximumEncodedSize(single value: RowValue) -> Int {
        2 + maximumPayloadSize(value)
    }

    /// At most how many bytes `value`'s payload takes, counting ten for each varint.
    private static func maximumPayloadSize(_ value: RowValue) -> Int {
        switch value {
        case .null, .bool: 0
        case .int, .objectKey: 10
        case .float: 4
        case .double: 8
        case .string(let text): 10 + text.utf8.count
        case .binary(let bytes): 10 + bytes.count
        case .timestamp: 20
        case .uuid: 16
        case .list(let elements): 10 + maximumEncodedSize(elements)
        }
    }

    // MARK: Decoding

    /// Decodes every column.
    package static func decode(_ row: UnsafeRawBufferPointer, origin: UInt64 = 0) throws -> [RowValue] {
        try decode(row, origin: origin, depth: 0)
    }

    /// How deep lists may nest in a row. The object layer nests them only for lists and
    /// dictionaries in a mixed value (`AnyRealmValue.maximumNesting`, 100, two levels each);
    /// deeper is a damaged or forged row, refused before decoding it could overflow the stack.
    static let maximumListNesting = 256

    /// `decode`, for a list `depth` lists down in a row.
    private static func decode(_ row: UnsafeRawBufferPointer, origin: UInt64, depth: Int) throws -> [RowValue] {
        var values: [RowValue] = []
        var reader = ByteReader(row, origin: origin)
        values.reserveCapacity(try reader.readLength(limit: row.count * 2))
        try forEachValue(in: row, origin: origin, depth: depth) { values.append($1) }
        return values
    }

    /// Decodes every column into `values`, reusing its storage: a scan decodes millions of rows
    /// without allocating an array per row.
    package static func decode(_ row: UnsafeRawBufferPointer, into values: inout [RowValue], origin: UInt64 = 0) throws {
        values.removeAll(keepingCapacity: true)
        var reader = ByteReader(row, origin: origin)
        values.reserveCapacity(try reader.readLength(limit: row.count * 2))
        try forEachValue(in: row, origin: origin) { values.append($1) }
    }

    /// Calls `body` with each column's index and value in order, without collecting them.
    @inline(__always)
    static func forEachValue(
        in row: UnsafeRawBufferPointer, origin: UInt64 = 0, depth: Int = 0, _ body: (Int, RowValue) throws -> Void
    ) throws {
        var reader = ByteReader(row, origin: origin)
        let count = try reader.readLength(limit: row.count * 2)
        let tags = try reader.readBytes((count + 1) / 2)
        for index in 0..<count {
            let byte = tags[index >> 1]
            let raw = index & 1 == 0 ? byte & 0x0f : byte >> 4
            // Integers are most of what rows hold: decode them without the general dispatch.
            if raw == Tag.positive.rawValue, reader.position < row.count, row[reader.position] < 0x80 {
                reader.position += 1
                try body(index, .int(Int64(row[reader.position - 1])))
                continue
            }
            try body(index, try decodePayload(tag: try tag(tags, index, &reader), &reader, depth: depth))
        }
    }

    /// Decodes column `column` alone; a column past the row's end reads as null (it was added
    /// after the row was written).
    @inline(__always)
    package static func decodeColumn(_ column: Int, of row: UnsafeRawBufferPointer, origin: UInt64 = 0) throws -> RowValue {
        // Queries read one column of every row: find it with plain pointer arithmetic, and take
        // the checked path below for anything unusual (including a damaged row, which it
        // reports).
        if let (tag, offset) = locate(column, in: row), let value = decodeLocated(tag: tag, offset: offset, in: row) {
            return value
        }
        return try decodeColumnChecked(column, of: row, origin: origin)
    }

    /// Decodes column `column` alone, as `decodeColumn(_:of:)` does, starting the walk to it
    /// from `cursor` when that is a column before it, and leaving `cursor` at `column`: an
    /// accessor reading a row's columns in order walks each column's tag once.
    @inline(__always)
    package static func decodeColumn(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor) throws -> RowValue {
        if let (tag, offset) = locate(column, in: row, from: cursor) {
            // Where the payload ends comes with decoding it: the next column's walk starts there.
            var end = 0
            let value = decodeLocated(tag: tag, offset: offset, in: row, end: &end)
            cursor = ColumnCursor(column: column, offset: offset, end: end)
            if let value { return value }
        }
        return try decodeColumnChecked(column, of: row)
    }

    /// Column `column` if it holds an integer, nil if it holds anything else (null, another
    /// type, past the row's end): what a query comparing an integer column asks of every row,
    /// answered without building a `RowValue`.
    @inline(__always)
    package static func integer(_ column: Int, of row: UnsafeRawBufferPointer) throws -> Int64? {
        if let (tag, offset) = locate(column, in: row) {
            switch tag {
            case Tag.zero.rawValue: return 0
            case Tag.positive.rawValue:
                if row[offset] < 0x80 { return Int64(row[offset]) }
                var position = offset
                if let magnitude = varint(in: row, at: &position), magnitude <= UInt64(Int64.max) { return Int64(magnitude) }
            case Tag.negative.rawValue:
                var position = offset
                if let magnitude = varint(in: row, at: &position), magnitude <= UInt64(Int64.max) { return ~Int64(magnitude) }
            case ...Tag.list.rawValue:
                return nil
            default: break
            }
        }
        if case .int(let number) = try decodeColumnChecked(column, of: row) { return number }
        return nil
    }

    /// The value whose tag is `tag` and payload starts at `offset`, for the common types; nil
    /// for anything else or anything that does not add up (the checked path decides).
    @inline(__always)
    private static func decodeLocated(tag: UInt8, offset: Int, in row: UnsafeRawBufferPointer) -> RowValue? {
        var end = 0
        return decodeLocated(tag: tag, offset: offset, in: row, end: &end)
    }

    /// `decodeLocated`, also setting `end` to where the payload ends when it returns a value.
    @inline(__always)
    private static func decodeLocated(tag: UInt8, offset: Int, in row: UnsafeRawBufferPointer, end: inout Int) -> RowValue? {
        switch tag {
        case Tag.null.rawValue: end = offset; return .null
        case Tag.false.rawValue: end = offset; return .bool(false)
        case Tag.true.rawValue: end = offset; return .bool(true)
        case Tag.zero.rawValue, Tag.positive.rawValue, Tag.negative.rawValue:
            if let number = integerPayload(tag: tag, offset: offset, in: row, end: &end) { return .int(number) }
        case Tag.double.rawValue:
            if let number = doublePayload(offset: offset, in: row, end: &end) { return .double(number) }
        case Tag.string.rawValue:
            if let bytes = stringPayload(offset: offset, in: row, end: &end) {
                return .string(String(storedUTF8: bytes))
            }
        case Tag.timestamp.rawValue:
            if let (seconds, nanoseconds) = timestampPayload(offset: offset, in: row, end: &end) {
                return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
            }
        default: break
        }
        return nil
    }

    // The payloads `decodeLocated` and the typed reads (`RowCodec+TypedReads.swift`) decode:
    // each sets `end` to where the payload ends, or returns nil if it does not add up. With
    // `inPlaceOnly`, a varint that does not fit a word also returns nil instead of being read
    // byte by byte (a call): see `RowCodec.read(_:of:cursor:inPlaceOnly:_:)`.

    /// An integer whose tag (`zero`, `positive` or `negative`) is `tag`.
    @inlinable
    @inline(__always)
    static func integerPayload(tag: UInt8, offset: Int, in row: UnsafeRawBufferPointer, end: inout Int, inPlaceOnly: Bool = false) -> Int64? {
        if tag == Tag.zero.rawValue { end = offset; return 0 }
        // Most integers in rows are small: one byte, no loop.
        if tag == Tag.positive.rawValue && row[offset] < 0x80 { end = offset + 1; return Int64(row[offset]) }
        // Longer: a word at once, without the one-byte test again (and inlined: `varint`
        // was called out of line here, on every read of a key-sized integer).
        var position = offset
        guard let magnitude = wideVarint(in: row, at: &position, inPlaceOnly: inPlaceOnly), magnitude <= UInt64(Int64.max) else { return nil }
        end = position
        return tag == Tag.negative.rawValue ? ~Int64(magnitude) : Int64(magnitude)
    }

    @inlinable
    @inline(__always)
    static func doublePayload(offset: Int, in row: UnsafeRawBufferPointer, end: inout Int) -> Double? {
        guard offset + 8 <= row.count else { return nil }
        end = offset + 8
        return Double(bitPattern: UInt64(littleEndian: row.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    /// A string's UTF-8 bytes, in place.
    @inlinable
    @inline(__always)
    static func stringPayload(offset: Int, in row: UnsafeRawBufferPointer, end: inout Int, inPlaceOnly: Bool = false) -> UnsafeRawBufferPointer? {
        var position = offset
        guard let length = varint(in: row, at: &position, inPlaceOnly: inPlaceOnly), length <= UInt64(row.count - position) else { return nil }
        end = position + Int(length)
        return UnsafeRawBufferPointer(rebasing: row[position..<end])
    }

    @inlinable
    @inline(__always)
    static func timestampPayload(offset: Int, in row: UnsafeRawBufferPointer, end: inout Int, inPlaceOnly: Bool = false) -> (seconds: Int64, nanoseconds: Int32)? {
        var position = offset
        guard let zigzag = wideVarint(in: row, at: &position, inPlaceOnly: inPlaceOnly) else { return nil }
        // Most dates stored are whole seconds or close: nanoseconds in one byte, read here.
        let nanoseconds: UInt64
        if position < row.count && row[position] < 0x80 {
            nanoseconds = UInt64(row[position])
            position &+= 1
        } else {
            guard let read = varint(in: row, at: &position, inPlaceOnly: inPlaceOnly), read < 1_000_000_000 else { return nil }
            nanoseconds = read
        }
        end = position
        return (Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1), Int32(nanoseconds))
    }

    /// The varint at `position`, moving past it; nil if it runs past the row or past ten bytes
    /// (the checked path then reports it), or with `inPlaceOnly`, if it does not fit a word.
    @inlinable
    @inline(__always)
    static func varint(in row: UnsafeRawBufferPointer, at position: inout Int, inPlaceOnly: Bool = false) -> UInt64? {
        // One byte, the most common length (string lengths, small numbers), costs one test.
        if position < row.count && row[position] < 0x80 {
            position += 1
            return UInt64(row[position - 1])
        }
        return wideVarint(in: row, at: &position, inPlaceOnly: inPlaceOnly)
    }

    /// `varint`, for a varint that usually takes several bytes (a date's seconds): read as a
    /// word at once, without first testing for one byte. A call site of its own keeps that
    /// test's branch apart from the one-byte varints' (string lengths), whose outcome is the
    /// opposite: taking turns at one branch, every date's read was mispredicted there.
    @inlinable
    @inline(__always)
    static func wideVarint(in row: UnsafeRawBufferPointer, at position: inout Int, inPlaceOnly: Bool = false) -> UInt64? {
        // Up to eight bytes at once: the varint ends at the first byte with the high bit clear,
        // and its 7-bit groups are packed together in three steps. (Longer varints, and rows
        // shorter than a word, go byte by byte.)
        if let word = word(in: row, at: position) {
            let lastBytes = ~word & 0x8080_8080_8080_8080
            if lastBytes != 0 {
                let length = lastBytes.trailingZeroBitCount / 8 + 1
                // Near the row's end the word holds zeros past it: a varint that only ends there
                // runs past the row.
                guard position + length <= row.count else { return nil }
                let mask: UInt64 = length == 8 ? ~0 : (1 << (8 * UInt64(length))) - 1
                var groups = word & mask & 0x7f7f_7f7f_7f7f_7f7f
                groups = (groups & 0x007f_007f_007f_007f) | (groups & 0x7f00_7f00_7f00_7f00) >> 1
                groups = (groups & 0x0000_3fff_0000_3fff) | (groups & 0x3fff_0000_3fff_0000) >> 2
                groups = (groups & 0x0000_0000_0fff_ffff) | (groups & 0x0fff_ffff_0000_0000) >> 4
                position += length
                return groups
            }
        }
        return inPlaceOnly ? nil : varintByBytes(in: row, at: &position)
    }

    /// `wideVarint`'s path for a varint longer than eight bytes or in a row shorter than a
    /// word: byte by byte, out of line. (Its loop in `wideVarint` kept the compiler from
    /// inlining that into the reads of an `Int`, which called it for every id above 127.)
    @usableFromInline
    static func varintByBytes(in row: UnsafeRawBufferPointer, at position: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < row.count, shift < 64 {
            let byte = row[position]
            position += 1
            // The tenth byte holds bit 63 alone; more is an oversized varint, as the checked
            // reader says.
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return nil
    }

    /// The eight bytes of `row` from `position` as a little-endian word, the bytes past the
    /// row's end reading as zero: loaded in place where the row has eight bytes there, and from
    /// the row's last eight, shifted, near its end (where the last column's varints are). Nil
    /// for a row shorter than eight bytes or a position past its end.
    @inlinable
    @inline(__always)
    static func word(in row: UnsafeRawBufferPointer, at position: Int) -> UInt64? {
        if position &+ 8 <= row.count {
            return UInt64(littleEndian: row.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }
        guard row.count >= 8, position < row.count else { return nil }
        let start = row.count - 8
        return UInt64(littleEndian: row.loadUnaligned(fromByteOffset: start, as: UInt64.self)) >> (UInt64(position - start) &* 8)
    }

    /// The tag of column `column` and where its payload starts, found without building values
    /// or checks beyond staying inside the row; nil for a column past the row's end, or anything
    /// that does not add up (the checked path decides).
    @inline(__always)
    static func locate(_ column: Int, in row: UnsafeRawBufferPointer, from cursor: ColumnCursor = ColumnCursor()) -> (tag: UInt8, offset: Int)? {
        let end = row.count
        guard end > 0 else { return nil }
        // The column count, a varint: one byte up to 127 columns, more past them (a class of 128
        // properties or more, whose rows every typed read, filter and aggregate must still find).
        var count = Int(row[0])
        var tags = 1
        if count >= 0x80 {
            guard let wide = wideColumnCount(of: row) else { return nil }
            (count, tags) = wide
        }
        guard column < count else { return nil }
        // From the cursor's column when it is this one, from the column after it when it is one
        // before and its payload's end is known, from the first otherwise.
        var first = 0
        var offset = tags + (count + 1) / 2
        if cursor.offset > 0 && cursor.column <= column {
            if cursor.end > 0 && cursor.column < column {
                (first, offset) = (cursor.column + 1, cursor.end)
            } else {
                (first, offset) = (cursor.column, cursor.offset)
            }
        }
        guard offset <= end else { return nil }
        @inline(__always) func skipVarint(_ offset: inout Int) -> Bool {
            // One byte, the most common length (small numbers), costs one test.
            if offset < end && row[offset] < 0x80 {
                offset &+= 1
                return true
            }
            // Eight bytes at once: a varint ends at its first byte with the high bit clear.
            // (Longer varints, and rows shorter than a word, go byte by byte.) One that runs
            // past the row's end moves `offset` past it, which the walk checks.
            if let word = word(in: row, at: offset) {
                let lastBytes = ~word & 0x8080_8080_8080_8080
                if lastBytes != 0 {
                    offset &+= lastBytes.trailingZeroBitCount &>> 3 &+ 1
                    return true
                }
            }
            while offset < end {
                let byte = row[offset]
                offset += 1
                if byte < 0x80 { return true }
            }
            return false
        }
        for index in first..<column {
            let byte = row[tags + index >> 1]
            switch index & 1 == 0 ? byte & 0x0f : byte >> 4 {
            case 0, 1, 2, 3: break
            case 4, 5, 12: guard skipVarint(&offset) else { return nil }
            case 6: offset &+= 4
            case 7: offset &+= 8
            case 11: offset &+= 16
            case 10: guard skipVarint(&offset), skipVarint(&offset) else { return nil }
            case 8, 9, 13:
                // A length (varint) and that many bytes: a length of one or two bytes read here,
                // a longer one (a value of 16 KiB or more, in a row on overflow pages) by a call.
                guard offset < end else { return nil }
                let first = Int(row[offset])
                if first < 0x80 {
                    offset &+= 1 &+ first
                } else if offset + 1 < end, row[offset + 1] < 0x80 {
                    offset &+= 2 &+ (first & 0x7f | Int(row[offset + 1]) << 7)
                } else {
                    guard skipLongValue(in: row, at: &offset) else { return nil }
                }
            default: return nil
            }
            guard offset <= end else { return nil }
        }
        let byte = row[tags + column >> 1]
        let tag = column & 1 == 0 ? byte & 0x0f : byte >> 4
        // Payload-less tags may sit at the very end of the row.
        guard offset < end || tag <= Tag.zero.rawValue else { return nil }
        return (tag, offset)
    }

    /// The column count of a row of 128 columns or more, whose varint takes two bytes or more,
    /// and where its tags start; nil if it does not add up (two tags a byte: a count past twice
    /// the row's length). A call of its own, as `skipLongValue` is.
    @inline(never)
    static func wideColumnCount(of row: UnsafeRawBufferPointer) -> (count: Int, tags: Int)? {
        var tags = 0
        guard let count = varint(in: row, at: &tags), count <= UInt64(row.count) * 2 else { return nil }
        return (Int(count), tags)
    }

    /// Moves `offset` past a string, binary or list whose length takes three bytes or more;
    /// false if it runs past the row. A call of its own: it is rare, and `locate` is inlined
    /// into every scan.
    @inline(never)
    static func skipLongValue(in row: UnsafeRawBufferPointer, at offset: inout Int) -> Bool {
        guard let length = varint(in: row, at: &offset), length <= UInt64(row.count - offset) else { return false }
        offset += Int(length)
        return true
    }

    /// What `replacingColumn(_:of:with:)` made of a row.
    package enum ColumnReplacement {
        /// The column already holds the value (the same bytes).
        case unchanged
        /// The row with the column replaced, as `encode` writes it.
        case replaced([UInt8])
        /// The row ends before the column: it must be decoded and padded with nulls.
        case pastTheRowsEnd
    }

    /// `row` with column `column` holding `value`, spliced from the row's bytes: the other
    /// columns' payloads are copied, not decoded and encoded again, which is most of what
    /// setting one property of an object cost. The columns before `column` are walked with
    /// every check, and a damaged one throws `fileCorrupted`.
    package static func replacingColumn(_ column: Int, of row: UnsafeRawBufferPointer, with value: RowValue) throws -> ColumnReplacement {
        var reader = ByteReader(row, origin: 0)
        let count = try reader.readLength(limit: row.count * 2)
        guard column < count else { return .pastTheRowsEnd }
        let tagsStart = reader.position
        let tags = try reader.readBytes((count + 1) / 2)
        let payloadsStart = reader.position
        for index in 0..<column { try skipPayload(tag: try tag(tags, index, &reader), &reader) }
        let start = reader.position
        try skipPayload(tag: try tag(tags, column, &reader), &reader)
        let end = reader.position

        var writer = ByteWriter(capacity: row.count + 16)
        writer.append(UnsafeRawBufferPointer(rebasing: row[..<payloadsStart]))
        let tagByte = tagsStart + column >> 1
        let newTag = tag(of: value).rawValue
        writer.bytes[tagByte] = column & 1 == 0 ? (row[tagByte] & 0xf0 | newTag) : (row[tagByte] & 0x0f | newTag << 4)
        writer.append(UnsafeRawBufferPointer(rebasing: row[payloadsStart..<start]))
        encodePayload(value, into: &writer)
        writer.append(UnsafeRawBufferPointer(rebasing: row[end...]))
        return writer.bytes.elementsEqual(row) ? .unchanged : .replaced(writer.bytes)
    }

    /// `decodeColumn` with every check: reports a damaged row as `fileCorrupted`.
    static func decodeColumnChecked(_ column: Int, of row: UnsafeRawBufferPointer, origin: UInt64 = 0) throws -> RowValue {
        var reader = ByteReader(row, origin: origin)
        let count = try reader.readLength(limit: row.count * 2)
        guard column < count else { return .null }
        let tags = try reader.readBytes((count + 1) / 2)
        for index in 0..<column { try skipPayload(tag: try tag(tags, index, &reader), &reader) }
        return try decodePayload(tag: try tag(tags, column, &reader), &reader)
    }

    /// The UTF-8 bytes of string column `column`, in place (no `String` made); nil if the
    /// column holds no string (null, past the row's end, or another type).
    package static func stringBytes(_ column: Int, of row: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        if let (tag, offset) = locate(column, in: row) {
            guard tag == Tag.string.rawValue else {
                // Another type, or null: no string. Unknown tags take the checked path below.
                if tag <= Tag.list.rawValue { return nil }
                return try stringBytesChecked(column, of: row)
            }
            var position = offset
            if let length = varint(in: row, at: &position), length <= UInt64(row.count - position) {
                return UnsafeRawBufferPointer(rebasing: row[position..<(position + Int(length))])
            }
        }
        return try stringBytesChecked(column, of: row)
    }

    /// `stringBytes` with every check: reports a damaged row as `fileCorrupted`.
    static func stringBytesChecked(_ column: Int, of row: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var reader = ByteReader(row, origin: 0)
        let count = try reader.readLength(limit: row.count * 2)
        guard column < count else { return nil }
        let tags = try reader.readBytes((count + 1) / 2)
        for index in 0..<column { try skipPayload(tag: try tag(tags, index, &reader), &reader) }
        guard try tag(tags, column, &reader) == .string else { return nil }
        return try reader.readBytes(try reader.readLength(limit: reader.remaining))
    }

    /// The number of columns stored in `row`.
    package static func columnCount(of row: UnsafeRawBufferPointer) throws -> Int {
        var reader = ByteReader(row, origin: 0)
        return try reader.readLength(limit: row.count * 2)
    }

    @inline(__always)
    private static func tag(_ tags: UnsafeRawBufferPointer, _ index: Int, _ reader: inout ByteReader) throws -> Tag {
        let byte = tags[index >> 1]
        let raw = index & 1 == 0 ? byte & 0x0f : byte >> 4
        guard let tag = Tag(rawValue: raw) else { throw reader.corrupted("row has unknown type tag \(raw)") }
        return tag
    }

    @inline(__always)
    private static func skipPayload(tag: Tag, _ reader: inout ByteReader) throws {
        switch tag {
        case .null, .false, .true, .zero: break
        case .positive, .negative, .objectKey: try reader.skipVarint()
        case .float: try reader.skip(4)
        case .double: try reader.skip(8)
        case .uuid: try reader.skip(16)
        case .timestamp:
            try reader.skipVarint()
            try reader.skipVarint()
        case .string, .binary, .list: try reader.skip(try reader.readLength(limit: reader.remaining))
        }
    }

    @inline(__always)
    private static func decodePayload(tag: Tag, _ reader: inout ByteReader, depth: Int = 0) throws -> RowValue {
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .zero: return .int(0)
        case .positive:
            let magnitude = try reader.readVarint()
            guard magnitude <= UInt64(Int64.max) else { throw reader.corrupted("row has an integer out of range") }
            return .int(Int64(magnitude))
        case .negative:
            let magnitude = try reader.readVarint()
            guard magnitude <= UInt64(Int64.max) else { throw reader.corrupted("row has an integer out of range") }
            return .int(~Int64(magnitude))
        case .float: return .float(Float(bitPattern: try reader.readUInt32()))
        case .double: return .double(Double(bitPattern: try reader.readUInt64()))
        case .string:
            let bytes = try reader.readBytes(try reader.readLength(limit: reader.remaining))
            return .string(String(storedUTF8: bytes))
        case .binary:
            return .binary(Array(try reader.readBytes(try reader.readLength(limit: reader.remaining))))
        case .timestamp:
            let zigzag = try reader.readVarint()
            let seconds = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            let nanoseconds = try reader.readVarint()
            guard nanoseconds < 1_000_000_000 else { throw reader.corrupted("row has a timestamp with \(nanoseconds) ns") }
            return .timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
        case .uuid:
            let high = UInt64(bigEndian: UInt64(littleEndian: try reader.readUInt64()).littleEndian)
            let low = UInt64(bigEndian: UInt64(littleEndian: try reader.readUInt64()).littleEndian)
            return .uuid(UInt128(high) << 64 | UInt128(low))
        case .objectKey: return .objectKey(try reader.readVarint())
        case .list:
            guard depth < maximumListNesting else { throw reader.corrupted("row nests lists more than \(maximumListNesting) deep") }
            let bytes = try reader.readBytes(try reader.readLength(limit: reader.remaining))
            return .list(try decode(bytes, origin: reader.origin, depth: depth + 1))
        }
    }
}

/// Where a column's payload starts in one encoded row, remembered so that reading a later
/// column of the same row resumes the walk there (`RowCodec.decodeColumn(_:of:cursor:)`).
/// The default cursor is at no column: walks start from the first.
@usableFromInline
package struct ColumnCursor {
    @usableFromInline var column = 0
    @usableFromInline var offset = 0
    /// Where the column's payload ends, once it was decoded; 0 if not known.
    @usableFromInline var end = 0

    /// (Inlinable: an accessor resets its cursor for every row it is given.)
    @inlinable
    package init() {}

    @inlinable
    init(column: Int, offset: Int, end: Int = 0) {
        self.column = column
        self.offset = offset
        self.end = end
    }
}
