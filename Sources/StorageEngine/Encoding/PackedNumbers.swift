/// Integers stored in as few bits as they need: what a leaf stored by column keeps of a
/// column's integers, decimals, timestamps and string lengths (`RowColumns`).
///
/// Two forms, told apart by the width byte:
/// - **offsets** (width 0...64): the smallest value (a zigzag varint), the width, then each
///   value's offset from the smallest in that many bits (`BitPacker`). Ages take seven bits,
///   a constant none.
/// - **a run** (width byte `PackedNumbers.run`): the first value, then the step from each value
///   to the next (both zigzag varints), and no bits at all: the ids of objects added in order,
///   and the row keys beside them, count up by one.
enum PackedNumbers {
    /// The width byte of values that step evenly from the first.
    static let run: UInt8 = 0x80

    static func write(_ values: [Int64], to writer: inout ByteWriter) {
        if values.count > 2, let step = evenStep(of: values) {
            writer.appendVarint(zigzag(values[0]))
            writer.append(run)
            writer.appendVarint(zigzag(step))
            return
        }
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        let bits = 64 - UInt64(bitPattern: high &- low).leadingZeroBitCount
        writer.appendVarint(zigzag(low))
        writer.append(UInt8(bits))
        var packed = BitPacker(count: values.count, bits: bits)
        for value in values { packed.append(UInt64(bitPattern: value &- low)) }
        writer.append(contentsOf: packed.bytes)
    }

    static func read(_ count: Int, from reader: inout ByteReader) throws -> [Int64] {
        let first = unzigzag(try reader.readVarint())
        let bits = try reader.readByte()
        if bits == run {
            let step = unzigzag(try reader.readVarint())
            // Wrapping, as the writer checked the steps: the values come back bit for bit.
            return (0..<count).map { first &+ Int64($0) &* step }
        }
        guard bits <= 64 else { throw reader.corrupted("packs numbers in \(bits) bits") }
        let stored = try reader.readBytes((count * Int(bits) + 7) / 8)
        return [Int64](unsafeUninitializedCapacity: count) { values, initialized in
            var index = 0
            BitPacker.forEachValue(in: stored, count: count, bits: Int(bits)) { offset in
                values[index] = first &+ Int64(bitPattern: offset)
                index += 1
            }
            initialized = count
        }
    }

    /// The step every value takes from the one before (wrapping), if it is the same for all.
    private static func evenStep(of values: [Int64]) -> Int64? {
        let step = values[1] &- values[0]
        for index in 2..<values.count where values[index] &- values[index - 1] != step { return nil }
        return step
    }

    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
