import Synchronization

extension String {
    /// Calls `body` with the string's UTF-8 bytes, read in place when they are contiguous (a
    /// native string's are): `withUTF8` needs a `var`, and copying the string into one counts
    /// a reference to its storage, twice per call.
    @inlinable @inline(__always)
    package func withUTF8InPlace<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }

    /// A string made from UTF-8 bytes read from the file, ill-formed sequences replaced by
    /// U+FFFD as `String(decoding:as:)` replaces them.
    ///
    /// Text of 15 ASCII bytes or fewer, most names and short labels, becomes a small string
    /// (kept inline, without an allocation) built from its bytes in a few instructions
    /// (`SmallASCIIString`) where the standard library's small strings are laid out as that
    /// expects. Other bytes that fit a small string are copied through
    /// `String(unsafeUninitializedCapacity:initializingUTF8With:)`, which builds one directly,
    /// and longer strings take `String(decoding:as:)`, the faster of the two when the string
    /// needs its own storage.
    ///
    /// `smallASCIILaidOutAsExpected` is `SmallASCIIString.isLaidOutAsExpected`, for a caller
    /// that keeps it at hand (reading the global from another module takes a call).
    @inlinable @inline(__always)
    package init(storedUTF8 bytes: UnsafeRawBufferPointer, smallASCIILaidOutAsExpected: Bool = SmallASCIIString.isLaidOutAsExpected) {
        guard bytes.count <= 15 else {
            self.init(decoding: bytes, as: UTF8.self)
            return
        }
        if let small = SmallASCIIString.make(bytes, laidOutAsExpected: smallASCIILaidOutAsExpected) {
            self = small
            return
        }
        self.init(unsafeUninitializedCapacity: bytes.count) { target in
            UnsafeMutableRawBufferPointer(target).copyMemory(from: bytes)
            return bytes.count
        }
    }
}

/// Builds a small string from up to 15 ASCII bytes by writing the two words the standard
/// library keeps it in, instead of calling its initialiser: a tenth of the time, for the
/// strings a scan makes the most of.
///
/// A 64-bit small string is two words: its bytes in order from the first word's low byte,
/// zeros after them, and in the last byte a discriminator (immortal, ASCII, small: `0xE0`)
/// with the count in its low four bits. That layout is the standard library's, not its
/// interface, so it is checked once, on first use (`isLaidOutAsExpected`): for every count
/// from 0 to 15, the words built here must be bit for bit the ones the standard library
/// builds for the same text. Where they are not, `make` returns nil and the caller takes the
/// public initialiser, so a standard library laid out otherwise makes slower strings, never
/// wrong ones. Only ASCII is built this way; other bytes need checking as UTF-8.
@usableFromInline
package enum SmallASCIIString {
    /// Whether the layout was checked (bit 0) and found as expected (bit 1). An atomic
    /// initialised with a constant, not a lazily initialised global: reading one of those
    /// called the runtime (`swift_once`) for every string.
    @usableFromInline
    static let layoutCheck = Atomic<UInt8>(0)

    /// Whether this standard library lays out small ASCII strings as `words(of:)` builds them.
    @inlinable @inline(__always)
    package static var isLaidOutAsExpected: Bool {
        let checked = layoutCheck.load(ordering: .relaxed)
        return checked != 0 ? checked == 3 : checkLayout()
    }

    /// Checks the layout, records what it found, and returns it.
    @usableFromInline
    static func checkLayout() -> Bool {
        var expected = MemoryLayout<String>.size == 16
        let letters = Array("abcdefghijklmnoABCDEFGHIJKLMNO0123456789".utf8)
        for count in 0...15 where expected {
            for start in [0, 7, 20] {
                let text = Array(letters[start..<(start + count)])
                let made = text.withUnsafeBytes { bytes in
                    String(unsafeUninitializedCapacity: count) { target in
                        UnsafeMutableRawBufferPointer(target).copyMemory(from: bytes)
                        return count
                    }
                }
                guard let words = text.withUnsafeBytes(words(of:)),
                      unsafeBitCast(made, to: (UInt64, UInt64).self) == words else {
                    expected = false
                    break
                }
            }
        }
        layoutCheck.store(expected ? 3 : 1, ordering: .relaxed)
        return expected
    }

    /// The string of `bytes`, if they are at most 15 bytes of ASCII and small strings are laid
    /// out as expected (`laidOutAsExpected`, which is `isLaidOutAsExpected` unless the caller
    /// kept it at hand); nil otherwise.
    @inlinable @inline(__always)
    package static func make(_ bytes: UnsafeRawBufferPointer, laidOutAsExpected: Bool = isLaidOutAsExpected) -> String? {
        guard laidOutAsExpected, let words = words(of: bytes) else { return nil }
        return unsafeBitCast(words, to: String.self)
    }

    /// The two words of the small string of `bytes`; nil unless they are at most 15 bytes of
    /// ASCII. Reads no byte outside `bytes`.
    @inlinable @inline(__always)
    static func words(of bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        let count = bytes.count
        guard count <= 15 else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        if count >= 8 {
            // The first eight bytes, and the last eight shifted down to the ones after them.
            low = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
            if count > 8 {
                high = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) &>> UInt64((16 &- count) &* 8)
            }
        } else {
            for index in 0..<count {
                low |= UInt64(bytes[index]) &<< UInt64(index &* 8)
            }
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return (low, high | UInt64(0xE0 | count) &<< 56)
    }
}
