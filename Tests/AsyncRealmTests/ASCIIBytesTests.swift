import Testing
@testable import AsyncRealm

@Suite("ASCII byte tests, eight bytes at a time")
struct ASCIIBytesTests {
    /// ASCII case folding one byte at a time: the reference.
    static func folded(_ byte: UInt8, _ lowercase: Bool) -> UInt8 {
        lowercase && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    @Test("lowercasing a word lowercases each of its eight bytes, and only letters")
    func lowercasedWords() {
        // Every ASCII byte in every lane, the neighbours of the letters among them.
        for byte in UInt8(0)..<0x80 {
            for lane in 0..<8 {
                let word = UInt64(byte) << (8 * UInt64(lane)) | 0x405B_605A_417B_3F7A & ~(0xff << (8 * UInt64(lane)))
                let lowered = ASCIIBytes.lowercased(word)
                for index in 0..<8 {
                    let original = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index)))
                    #expect(UInt8(truncatingIfNeeded: lowered >> (8 * UInt64(index))) == Self.folded(original, true), "byte \(original) in lane \(index)")
                }
            }
        }
    }

    @Test("contains and isASCII agree with byte-by-byte versions on random strings")
    func againstByteByByte() {
        var random = SystemRandomNumberGenerator()
        // Letters of both cases and the bytes next to them, so that matches are common and
        // folding is tested at its edges.
        let alphabet = Array("abAB@[`{zZ".utf8)
        for _ in 0..<20_000 {
            let haystack = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let lowercase = Bool.random(using: &random)
            let needle = (0..<Int.random(in: 0...4, using: &random)).map { _ in Self.folded(alphabet.randomElement(using: &random)!, lowercase) }
            let expected = needle.isEmpty || (needle.count <= haystack.count && (0...(haystack.count - needle.count)).contains { start in
                needle.indices.allSatisfy { Self.folded(haystack[start + $0], lowercase) == needle[$0] }
            })
            let fold = (0...255).map { Self.folded(UInt8($0), lowercase) }
            let found = haystack.withUnsafeBytes { bytes in
                needle.withUnsafeBufferPointer { needle in
                    fold.withUnsafeBufferPointer { ASCIIBytes.contains(needle, in: bytes, fold: $0, lowercase: lowercase) }
                }
            }
            #expect(found == expected, "\(String(decoding: needle, as: UTF8.self)) in \(String(decoding: haystack, as: UTF8.self)), lowercase \(lowercase)")

            var bytes = haystack
            if !bytes.isEmpty && Bool.random(using: &random) { bytes[Int.random(in: 0..<bytes.count, using: &random)] |= 0x80 }
            #expect(bytes.withUnsafeBytes(ASCIIBytes.isASCII) == bytes.allSatisfy { $0 < 0x80 })
        }
    }
}
