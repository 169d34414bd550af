/// Unsigned integers packed in `bits` bits each, little-endian bit order: value `i` takes bits
/// `i * bits ..< (i + 1) * bits` of the bytes, bit 0 of a byte first.
struct BitPacker {
    private var words: [UInt64]
    private let bits: Int
    private let count: Int
    /// The word being filled, how many of its bits are, and how many words are done.
    private var accumulator: UInt64 = 0
    private var filled = 0
    private var done = 0

    init(count: Int, bits: Int) {
        words = [UInt64](repeating: 0, count: (count * bits + 63) / 64)
        self.bits = bits
        self.count = count
    }

    /// Adds `value`, which must be below 2^bits.
    @inline(__always)
    mutating func append(_ value: UInt64) {
        accumulator |= value &<< UInt64(filled)
        filled += bits
        guard filled >= 64 else { return }
        words[done] = accumulator.littleEndian
        done += 1
        filled -= 64
        // The bits of `value` that did not fit start the next word.
        accumulator = filled == 0 ? 0 : value &>> UInt64(bits - filled)
    }

    /// The packed values: `(count * bits + 7) / 8` bytes.
    var bytes: [UInt8] {
        var words = words
        if filled > 0 { words[done] = accumulator.littleEndian }
        return words.withUnsafeBytes { Array($0.prefix((count * bits + 7) / 8)) }
    }

    static func unpack(_ bytes: UnsafeRawBufferPointer, count: Int, bits: Int) -> [UInt64] {
        var values = [UInt64]()
        values.reserveCapacity(count)
        forEachValue(in: bytes, count: count, bits: bits) { values.append($0) }
        return values
    }

    /// Calls `body` with each of the `count` values packed in `bits` bits in `bytes`, in order.
    @inline(__always)
    static func forEachValue(in bytes: UnsafeRawBufferPointer, count: Int, bits: Int, _ body: (UInt64) throws -> Void) rethrows {
        guard bits > 0 else {
            for _ in 0..<count { try body(0) }
            return
        }
        // Whole words, the last padded with zeros, so that every value is read with at most
        // two word loads.
        var words = [UInt64](repeating: 0, count: (bytes.count + 7) / 8 + 1)
        words.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
        let mask = bits == 64 ? UInt64.max : (1 << UInt64(bits)) - 1
        try words.withUnsafeBufferPointer { words in
            var position = 0
            for _ in 0..<count {
                let word = position >> 6, shift = position & 63
                var value = UInt64(littleEndian: words[word]) &>> UInt64(shift)
                if shift + bits > 64 { value |= UInt64(littleEndian: words[word + 1]) &<< UInt64(64 - shift) }
                try body(value & mask)
                position += bits
            }
        }
    }
}
