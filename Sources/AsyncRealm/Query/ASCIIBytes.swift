/// Tests on a string's UTF-8 bytes eight at a time, for the string comparisons a query runs on
/// stored rows (`QueryEvaluator.asciiStringTest`): whether the bytes are ASCII, and whether
/// they contain a needle, with or without ASCII case folded.
///
/// Each word is eight bytes of the string, little-endian, so byte `i` of the string is bits
/// `8i..<8i+8`. Byte lanes never carry into each other: every byte is ASCII (below 0x80)
/// before anything is added to it.
enum ASCIIBytes {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether every byte is below 0x80.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var bits: UInt64 = 0
        while index + 8 <= bytes.count {
            bits |= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        while index < bytes.count {
            bits |= UInt64(bytes[index])
            index += 1
        }
        return bits & highBits == 0
    }

    /// `word`, eight ASCII bytes, with `A`-`Z` made `a`-`z`.
    @inline(__always)
    static func lowercased(_ word: UInt64) -> UInt64 {
        // Bit 7 of a lane is set by adding 0x3F when the byte is at least `A` (0x41), and by
        // adding 0x25 when it is past `Z` (0x5B or more); upper case is the first without the
        // second, and 0x80 >> 2 is the case bit.
        let atLeastA = word &+ (0x80 - 0x41) &* ones
        let pastZ = word &+ (0x80 - 0x5B) &* ones
        return word | (atLeastA & ~pastZ & highBits) >> 2
    }

    /// Whether `bytes` hold `needle` (folded already) at `start`, comparing each byte through
    /// `fold`; the needle must fit.
    @inline(__always)
    static func matches(_ needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeRawBufferPointer, at start: Int, fold: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < needle.count {
            if fold[Int(bytes[start &+ offset])] != needle[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// Whether the ASCII `bytes` contain `needle` (folded already, through `fold`), comparing
    /// each byte of `bytes` through `fold` (`lowercase` says whether it lowercases).
    /// Candidate positions come eight at a time: the lanes of a word equal to the needle's
    /// first byte are found with the zero-byte test, and each is checked in full.
    @inline(__always)
    static func contains(
        _ needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeRawBufferPointer,
        fold: UnsafeBufferPointer<UInt8>, lowercase: Bool
    ) -> Bool {
        let length = needle.count
        guard length > 0 else { return true }
        guard length <= bytes.count else { return false }
        if length > SubstringSearch<UInt8>.longNeedle {
            return SubstringSearch(Array(needle)).isFound(in: bytes.count) { fold[Int(bytes[$0])] }
        }
        let last = bytes.count - length
        let first = UInt64(needle[0]) &* ones
        var start = 0
        while start + 8 <= bytes.count {
            var word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            if lowercase { word = lowercased(word) }
            let difference = word ^ first
            // Lanes that are zero have their high bit set here (lanes above a zero lane may be
            // flagged too; each candidate is checked).
            var candidates = (difference &- ones) & ~difference & highBits
            while candidates != 0 {
                let position = start + candidates.trailingZeroBitCount / 8
                if position > last { return false }
                if matches(needle, in: bytes, at: position, fold: fold) { return true }
                candidates &= candidates &- 1
            }
            start += 8
        }
        while start <= last {
            if matches(needle, in: bytes, at: start, fold: fold) { return true }
            start &+= 1
        }
        return false
    }
}
