/// Rows as `RowCodec` writes them, stored a column at a time: how a leaf page keeps its rows
/// (format version 2, see `Docs/Internals/FileFormat.md`).
///
/// Each column of the page's rows is stored together: the rows' tags for that column, four
/// bits each; the integers of the column (its rows tagged zero, positive or negative) packed as
/// offsets from their smallest value, in as many bits as the largest offset needs, when that is
/// shorter than their varints; and the other rows' payloads back to back. A column of ages
/// takes seven bits a row, a column of increasing ids as many bits as the page's spread of ids
/// needs, a column of nulls or of a constant nothing but its tags, which LZ4 then takes to
/// almost nothing. Rows come back byte for byte as they were written: only a row exactly as
/// `RowCodec` writes it (the shortest varints, nothing after its last payload) is stored this
/// way, and a page whose rows are not all such rows keeps them whole (`NodeCodec`).
enum RowColumns {
    /// The tag of a row that has no such column (it was written before the column was added).
    static let absent: UInt8 = 15
    /// The most columns a page of rows stored by column may have.
    static let maximumColumns = 1024

    /// One column of one row: its tag, where its payload is in the row, and its value if it is
    /// an integer.
    struct Part {
        var tag: UInt8 = RowColumns.absent
        var start: Int32 = 0
        var end: Int32 = 0
        var integer: Int64 = 0
    }

    private static func isInteger(_ tag: UInt8) -> Bool {
        tag == RowCodec.Tag.zero.rawValue || tag == RowCodec.Tag.positive.rawValue || tag == RowCodec.Tag.negative.rawValue
    }

    // MARK: Encoding

    /// Appends the rows (each `ends[i]` where row `i` ends in `bytes`) a column at a time to
    /// `writer` and returns true; returns false, writing nothing, unless every row is exactly
    /// as `RowCodec` writes it.
    static func encode(bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>, into writer: inout ByteWriter) -> Bool {
        guard let (parts, width) = split(bytes: bytes, ends: ends) else { return false }
        let count = ends.count
        writer.appendVarint(UInt64(width))
        parts.withUnsafeBufferPointer { parts in
            for column in 0..<width {
                encodeColumn(column, of: parts, rows: count, width: width, bytes: bytes, ends: ends, into: &writer)
            }
        }
        return true
    }

    /// Each row's parts, `width` per row (the most columns a row has), or nil if a row is not
    /// as `RowCodec` writes it.
    private static func split(bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>) -> (parts: [Part], width: Int)? {
        var counts: [Int] = []
        counts.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            var position = start
            guard let count = shortestVarint(in: bytes, at: &position, end: Int(end)), count <= UInt64(maximumColumns) else { return nil }
            counts.append(Int(count))
            start = Int(end)
        }
        let width = counts.max() ?? 0
        var parts = [Part](repeating: Part(), count: ends.count * width)
        start = 0
        for row in 0..<ends.count {
            guard splitRow(bytes, start..<Int(ends[row]), columns: counts[row], into: &parts, at: row * width) else { return nil }
            start = Int(ends[row])
        }
        return (parts, width)
    }

    /// Fills `parts[first...]` with the parts of the row at `range` of `bytes`, which has
    /// `columns` columns; false if it is not as `RowCodec` writes it.
    private static func splitRow(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, columns: Int, into parts: inout [Part], at first: Int) -> Bool {
        var position = range.lowerBound + ByteWriter.varintSize(UInt64(columns))
        let tags = position
        position += (columns + 1) / 2
        guard position <= range.upperBound else { return false }
        // The spare half of the last tag byte is zero, as `RowCodec` leaves it.
        if columns & 1 == 1, bytes[position - 1] >> 4 != 0 { return false }
        for column in 0..<columns {
            let byte = bytes[tags + column / 2]
            let tag = column & 1 == 0 ? byte & 0x0f : byte >> 4
            let start = position
            var integer: Int64 = 0
            switch tag {
            case RowCodec.Tag.positive.rawValue, RowCodec.Tag.negative.rawValue:
                // Only the shortest varint of a magnitude an Int64 holds comes back the same.
                guard let magnitude = shortestVarint(in: bytes, at: &position, end: range.upperBound),
                      magnitude <= UInt64(Int64.max) else { return false }
                if tag == RowCodec.Tag.positive.rawValue {
                    guard magnitude > 0 else { return false }
                    integer = Int64(magnitude)
                } else {
                    integer = ~Int64(magnitude)
                }
            default:
                guard let length = payloadLength(tag: tag, in: bytes, at: position, end: range.upperBound) else { return false }
                position += length
            }
            parts[first + column] = Part(tag: tag, start: Int32(start), end: Int32(position), integer: integer)
        }
        return position == range.upperBound
    }

    private static func encodeColumn(
        _ column: Int, of parts: UnsafeBufferPointer<Part>, rows: Int, width: Int,
        bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>, into writer: inout ByteWriter
    ) {
        var low = Int64.max, high = Int64.min
        var integers = 0, integerBytes = 0
        for row in 0..<rows {
            let part = parts[row * width + column]
            guard isInteger(part.tag) else { continue }
            low = min(low, part.integer)
            high = max(high, part.integer)
            integers += 1
            integerBytes += Int(part.end - part.start)
        }
        let bits = integers == 0 ? 0 : 64 - UInt64(bitPattern: high &- low).leadingZeroBitCount
        let packedBytes = (integers * bits + 7) / 8
        // Packed when that is shorter than the varints, counting the base and the width.
        let packs = integers > 0 && packedBytes + 11 < integerBytes
        writer.append(packs ? 1 : 0)
        var tagByte: UInt8 = 0
        for row in 0..<rows {
            let tag = parts[row * width + column].tag
            if row & 1 == 0 { tagByte = tag } else { writer.append(tagByte | tag << 4) }
        }
        if rows & 1 == 1 { writer.append(tagByte) }
        if packs {
            writer.appendVarint(UInt64(bitPattern: (low << 1) ^ (low >> 63)))
            writer.append(UInt8(bits))
            var packed = BitPacker(count: integers, bits: bits)
            for row in 0..<rows where isInteger(parts[row * width + column].tag) {
                packed.append(UInt64(bitPattern: parts[row * width + column].integer &- low))
            }
            writer.append(contentsOf: packed.bytes)
        }
        var payloadBytes = 0
        for row in 0..<rows {
            let part = parts[row * width + column]
            if !(packs && isInteger(part.tag)) { payloadBytes += Int(part.end - part.start) }
        }
        writer.appendVarint(UInt64(payloadBytes))
        for row in 0..<rows {
            let part = parts[row * width + column]
            guard !(packs && isInteger(part.tag)), part.end > part.start else { continue }
            writer.append(UnsafeRawBufferPointer(rebasing: bytes[Int(part.start)..<Int(part.end)]))
        }
    }

    // MARK: Decoding

    /// One column as stored: its rows' tags, its packed integers, its other payloads.
    private struct StoredColumn {
        var tags: [UInt8]
        var integers: [Int64] = []
        var packs = false
        var payloads: UnsafeRawBufferPointer
        /// How far the rows read so far have used `integers` and `payloads`.
        var nextInteger = 0
        var nextPayload = 0
    }

    /// Reads `count` rows stored a column at a time, and returns them as rows back to back
    /// with where each ends.
    static func decode(_ reader: inout ByteReader, count: Int) throws -> (ends: [UInt32], bytes: [UInt8]) {
        let width = try reader.readLength(limit: maximumColumns)
        var columns: [StoredColumn] = []
        columns.reserveCapacity(width)
        for _ in 0..<width { columns.append(try readColumn(&reader, rows: count)) }
        guard reader.isAtEnd else { throw reader.corrupted("has stray bytes after its columns") }
        var ends: [UInt32] = []
        ends.reserveCapacity(count)
        var bytes = ByteWriter(capacity: reader.buffer.count * 2)
        for row in 0..<count {
            try appendRow(row, of: &columns, to: &bytes, reader: reader)
            ends.append(UInt32(bytes.count))
        }
        for column in columns where column.nextPayload != column.payloads.count || column.nextInteger != column.integers.count {
            throw reader.corrupted("has a column with values no row uses")
        }
        return (ends, bytes.bytes)
    }

    private static func readColumn(_ reader: inout ByteReader, rows: Int) throws -> StoredColumn {
        let mode = try reader.readByte()
        guard mode <= 1 else { throw reader.corrupted("has a column stored in an unknown way (\(mode))") }
        let packed = try reader.readBytes((rows + 1) / 2)
        var tags = [UInt8](repeating: 0, count: rows)
        var integers = 0
        for row in 0..<rows {
            let tag = row & 1 == 0 ? packed[row / 2] & 0x0f : packed[row / 2] >> 4
            guard tag <= RowCodec.Tag.list.rawValue || tag == absent else { throw reader.corrupted("has an unknown tag \(tag)") }
            tags[row] = tag
            if isInteger(tag) { integers += 1 }
        }
        var column = StoredColumn(tags: tags, payloads: UnsafeRawBufferPointer(start: nil, count: 0))
        if mode == 1 {
            let zigzag = try reader.readVarint()
            let low = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            let bits = Int(try reader.readByte())
            guard bits <= 64 else { throw reader.corrupted("packs integers in \(bits) bits") }
            let stored = try reader.readBytes((integers * bits + 7) / 8)
            column.integers = BitPacker.unpack(stored, count: integers, bits: bits).map { low &+ Int64(bitPattern: $0) }
            column.packs = true
        }
        column.payloads = try reader.readBytes(try reader.readLength(limit: reader.remaining))
        return column
    }

    /// Appends row `row`, put together from its columns, to `bytes`.
    private static func appendRow(_ row: Int, of columns: inout [StoredColumn], to bytes: inout ByteWriter, reader: ByteReader) throws {
        var count = 0
        while count < columns.count && columns[count].tags[row] != absent { count += 1 }
        for column in count..<columns.count where columns[column].tags[row] != absent {
            throw reader.corrupted("has a row with a column after one it lacks")
        }
        bytes.appendVarint(UInt64(count))
        var column = 0
        while column < count {
            let high = column + 1 < count ? columns[column + 1].tags[row] : 0
            bytes.append(columns[column].tags[row] | high << 4)
            column += 2
        }
        for column in 0..<count {
            let tag = columns[column].tags[row]
            if columns[column].packs && isInteger(tag) {
                let value = columns[column].integers[columns[column].nextInteger]
                columns[column].nextInteger += 1
                switch tag {
                case RowCodec.Tag.zero.rawValue where value == 0: break
                case RowCodec.Tag.positive.rawValue where value > 0: bytes.appendVarint(UInt64(value))
                case RowCodec.Tag.negative.rawValue where value < 0: bytes.appendVarint(UInt64(~value))
                default: throw reader.corrupted("has an integer \(value) that does not match its tag \(tag)")
                }
                continue
            }
            let payloads = columns[column].payloads
            let start = columns[column].nextPayload
            guard let length = payloadLength(tag: tag, in: payloads, at: start, end: payloads.count) else {
                throw reader.corrupted("has a column whose values run past their end")
            }
            if length > 0 { bytes.append(UnsafeRawBufferPointer(rebasing: payloads[start..<(start + length)])) }
            columns[column].nextPayload = start + length
        }
    }

    // MARK: Payloads

    /// The length of the payload of a value tagged `tag` at `offset` of `bytes`, or nil if it
    /// runs past `end` (or the tag is unknown).
    static func payloadLength(tag: UInt8, in bytes: UnsafeRawBufferPointer, at offset: Int, end: Int) -> Int? {
        var position = offset
        switch tag {
        case 0, 1, 2, 3: return 0
        case 4, 5, 12: guard varint(in: bytes, at: &position, end: end) != nil else { return nil }
        case 6: position += 4
        case 7: position += 8
        case 11: position += 16
        case 10: guard varint(in: bytes, at: &position, end: end) != nil, varint(in: bytes, at: &position, end: end) != nil else { return nil }
        case 8, 9, 13:
            guard let length = varint(in: bytes, at: &position, end: end), length <= UInt64(end - position) else { return nil }
            position += Int(length)
        default: return nil
        }
        return position <= end ? position - offset : nil
    }

    /// The varint at `position`, moving past it; nil if it runs past `end` or ten bytes.
    private static func varint(in bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < end && shift < 70 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7f) &<< shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// A varint that is the shortest encoding of its value (so that writing the value again
    /// gives the same bytes), or nil.
    private static func shortestVarint(in bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) -> UInt64? {
        let start = position
        guard let value = varint(in: bytes, at: &position, end: end), position - start == ByteWriter.varintSize(value) else { return nil }
        return value
    }
}

/// Unsigned integers packed in `bits` bits each, little-endian bit order: value `i` takes bits
/// `i * bits ..< (i + 1) * bits` of the bytes, bit 0 of a byte first.
struct BitPacker {
    private(set) var bytes: [UInt8]
    private let bits: Int
    private var position = 0

    init(count: Int, bits: Int) {
        bytes = [UInt8](repeating: 0, count: (count * bits + 7) / 8)
        self.bits = bits
    }

    mutating func append(_ value: UInt64) {
        var value = value
        var left = bits
        while left > 0 {
            let shift = position & 7
            let take = min(8 - shift, left)
            bytes[position >> 3] |= UInt8(truncatingIfNeeded: (value & ((1 << UInt64(take)) - 1)) << UInt64(shift))
            value >>= UInt64(take)
            left -= take
            position += take
        }
    }

    static func unpack(_ bytes: UnsafeRawBufferPointer, count: Int, bits: Int) -> [UInt64] {
        guard bits > 0 else { return [UInt64](repeating: 0, count: count) }
        var values = [UInt64]()
        values.reserveCapacity(count)
        var position = 0
        for _ in 0..<count {
            var value: UInt64 = 0
            var got = 0
            while got < bits {
                let shift = position & 7
                let take = min(8 - shift, bits - got)
                let piece = (UInt64(bytes[position >> 3]) >> UInt64(shift)) & ((1 << UInt64(take)) - 1)
                value |= piece << UInt64(got)
                got += take
                position += take
            }
            values.append(value)
        }
        return values
    }
}
