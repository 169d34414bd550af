/// A column's tags in a leaf stored by column (`RowColumns`), in the shortest of three forms.
///
/// Most columns hold one kind of value, so most tag columns are one tag repeated, or two tags
/// (a Bool's false and true; an Int's zero and positive): stored as nibbles those take half a
/// byte a row, of which LZ4 cannot take back the bit a Bool's tag carries.
enum PackedTags {
    /// How a column's tags are stored; kept in bits 4 and 5 of the column's mode byte.
    enum Form: UInt8 {
        /// Four bits a row, row 0 in the low half of the first byte.
        case nibbles = 0
        /// One byte: the tag of every row.
        case one = 1
        /// One byte, `low | high << 4` with `low < high`, then a bit a row (row 0 in bit 0 of
        /// the first byte), set where the row's tag is `high`; the spare bits of the last byte
        /// are zero.
        case two = 2
    }

    /// The form that stores `count` rows' tags (`tag(row)`) in the fewest bytes.
    @inline(__always)
    static func form(count: Int, _ tag: (Int) -> UInt8) -> Form {
        var present: UInt16 = 0
        for row in 0..<count { present |= 1 << UInt16(tag(row)) }
        switch present.nonzeroBitCount {
        case 1: return .one
        case 2: return .two
        default: return .nibbles
        }
    }

    static func write(_ form: Form, count: Int, to writer: inout ByteWriter, _ tag: (Int) -> UInt8) {
        switch form {
        case .nibbles:
            var byte: UInt8 = 0
            for row in 0..<count {
                if row & 1 == 0 { byte = tag(row) } else { writer.append(byte | tag(row) << 4) }
            }
            if count & 1 == 1 { writer.append(byte) }
        case .one:
            writer.append(tag(0))
        case .two:
            var present: UInt16 = 0
            for row in 0..<count { present |= 1 << UInt16(tag(row)) }
            let low = UInt8(present.trailingZeroBitCount)
            let high = UInt8(15 - present.leadingZeroBitCount)
            writer.append(low | high << 4)
            var byte: UInt8 = 0
            for row in 0..<count {
                if tag(row) == high { byte |= 1 << UInt8(row & 7) }
                if row & 7 == 7 { writer.append(byte); byte = 0 }
            }
            if count & 7 != 0 { writer.append(byte) }
        }
    }

    /// Reads `count` rows' tags stored in `form`. The tags are not checked against the known
    /// ones here; every byte is checked to be one the writer could have written.
    static func read(_ form: Form, count: Int, from reader: inout ByteReader) throws -> [UInt8] {
        switch form {
        case .nibbles:
            let packed = try reader.readBytes((count + 1) / 2)
            if count & 1 == 1, packed[count / 2] >> 4 != 0 { throw reader.corrupted("has a tag after its last row") }
            return (0..<count).map { row in row & 1 == 0 ? packed[row / 2] & 0x0f : packed[row / 2] >> 4 }
        case .one:
            return [UInt8](repeating: try reader.readByte(), count: count)
        case .two:
            let pair = try reader.readByte()
            let (low, high) = (pair & 0x0f, pair >> 4)
            guard low < high else { throw reader.corrupted("has a pair of tags out of order") }
            let bits = try reader.readBytes((count + 7) / 8)
            if count & 7 != 0, bits[count / 8] >> UInt8(count & 7) != 0 { throw reader.corrupted("has a tag after its last row") }
            return (0..<count).map { row in bits[row / 8] >> UInt8(row & 7) & 1 == 1 ? high : low }
        }
    }
}
