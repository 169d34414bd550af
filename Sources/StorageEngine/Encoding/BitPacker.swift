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

    /// Calls `body` with each of the `count` values packed in `bits` bits in `bytes`, in order.
    @inline(__always)
    static func forEachValue(in bytes: UnsafeRawBufferPointer, count: Int, bits: Int, _ body: (UInt64) throws -> Void) rethrows {
        guard bits > 0 else {
            for _ in 0..<count { try body(0) }
            return
        }
        let mask = self.mask(bits: bits)
        try paddedWords(bytes).withUnsafeBufferPointer { words in
            var position = 0
            for _ in 0..<count {
                try body(value(at: position, in: words, mask: mask))
                position &+= bits
            }
        }
    }

    /// `bytes` as whole words, the last padded with zeros, and one word of zeros after it:
    /// every value packed in them is read with two word loads (`value(at:in:mask:)`).
    static func paddedWords(_ bytes: UnsafeRawBufferPointer) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: (bytes.count + 7) / 8 + 1)
        words.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
        return words
    }

    /// The low `bits` bits set, for `value(at:in:mask:)`.
    @inline(__always)
    static func mask(bits: Int) -> UInt64 { bits == 64 ? .max : (1 << UInt64(bits)) - 1 }

    /// The value whose bits start at bit `position` of `words` (`paddedWords`), `mask` its
    /// width. The word after is always loaded and shifted out when the value lies in one word,
    /// so that no branch depends on where a value begins.
    @inline(__always)
    static func value(at position: Int, in words: UnsafeBufferPointer<UInt64>, mask: UInt64) -> UInt64 {
        let word = position &>> 6, shift = UInt64(position & 63)
        let low = UInt64(littleEndian: words[word]) &>> shift
        let high = (UInt64(littleEndian: words[word &+ 1]) &<< 1) &<< (63 &- shift)
        return (low | high) & mask
    }
}
