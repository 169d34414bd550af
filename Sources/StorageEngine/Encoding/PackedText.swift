/// A column's strings in a leaf stored by column (`RowColumns`), each byte in as few bits as
/// the column's alphabet needs.
///
/// Names, codes and identifiers are mostly made of a few dozen different bytes: letters of one
/// case take five bits, letters, digits and a few signs six, where LZ4 takes back almost
/// nothing of text with few repeats. Text that repeats (a status, a category, a shared prefix)
/// is what LZ4 is good at and bit packing would hide from it, so `Survey` estimates what LZ4
/// would leave of the plain bytes, and the writer packs only when packing is shorter still.
///
/// The section, for the column's `n` strings:
/// ```
/// alphabetCount   one byte, 0...128: how many different bytes the strings use
/// alphabet        those bytes, ascending
/// lengths         PackedNumbers: each string's length in bytes
/// codes           each byte of the strings, in order, as its position in the alphabet, in
///                 bitWidth(alphabetCount - 1) bits (BitPacker); no bits for one byte value
/// ```
enum PackedText {
    /// The most different bytes a packed column may use (seven bits a byte).
    static let maximumAlphabet = 128
    /// The most bytes the strings of one column may hold together; a leaf's rows are far
    /// shorter (`TreeLayout.maxLeafBytes`), so only a damaged page claims more (and a page's
    /// columns together may hold no more, `RowColumns.maximumDecodedBytes`).
    static let maximumBytes = 1 << 20

    /// What the writer learns from a column's strings as it meets them: the bytes they use,
    /// and how many of their positions begin four bytes seen before (what LZ4 would match).
    ///
    /// The repeats are counted in the column's first `surveyedBytes` bytes of payloads and
    /// scaled to the rest: a column's strings are alike (names, codes, statuses), and counting
    /// every position of a leaf's names was a fifth of encoding the leaf, in the thread that
    /// must keep up with a bulk insert's adds.
    struct Survey {
        /// The payload bytes whose repeats are counted.
        static let surveyedBytes = 1024
        /// A bit for each byte value met: bit `b & 63` of word `b >> 6`.
        private var present: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private(set) var bytes = 0
        /// Repeats counted in the first `surveyed` payload bytes, of `payloadBytes` met.
        private var counted = 0
        private var surveyed = 0
        private var payloadBytes = 0
        /// The last four bytes met, and the last four-byte sequence seen at each hash.
        private var window: UInt32 = 0
        private var windowBytes = 0
        private var seen: [UInt32] = []

        /// Adds one string's payload (its length varint and its bytes, as LZ4 would see them)
        /// to the estimate, and its bytes (`text`) to the alphabet.
        ///
        /// No branch depends on the bytes: the words are chosen by selects, in registers, and
        /// the table of sequences is written whether or not the sequence was in it (that
        /// branch was mispredicted every few bytes of names).
        mutating func add(payload: UnsafeRawBufferPointer, text: UnsafeRawBufferPointer) {
            var (low, lowMiddle, highMiddle, high) = present
            for byte in text {
                let bit: UInt64 = 1 &<< UInt64(byte & 63), word = byte >> 6
                low |= word == 0 ? bit : 0
                lowMiddle |= word == 1 ? bit : 0
                highMiddle |= word == 2 ? bit : 0
                high |= word == 3 ? bit : 0
            }
            present = (low, lowMiddle, highMiddle, high)
            bytes &+= text.count
            payloadBytes &+= payload.count
            guard surveyed < Self.surveyedBytes else { return }
            surveyed &+= payload.count
            if seen.isEmpty { seen = [UInt32](repeating: 0, count: 4096) }
            var window = window, windowBytes = windowBytes, repeated = counted
            seen.withUnsafeMutableBufferPointer { seen in
                for byte in payload {
                    window = window &<< 8 | UInt32(byte)
                    windowBytes &+= 1
                    let slot = Int((window &* 2_654_435_761) &>> 20)
                    // The first three bytes of the column make no whole sequence yet.
                    let whole = windowBytes >= 4, old = seen[slot]
                    repeated &+= whole && old == window ? 1 : 0
                    seen[slot] = whole ? window : old
                }
            }
            (self.window, self.windowBytes, self.counted) = (window, windowBytes, repeated)
        }

        /// How many positions of the payloads begin four bytes seen before: those counted,
        /// scaled from the bytes surveyed to all.
        var repeated: Int {
            surveyed == 0 ? 0 : Int((Double(counted) * Double(payloadBytes) / Double(surveyed)).rounded(.down))
        }

        /// The different bytes the strings use, ascending.
        var alphabet: [UInt8] {
            (0...255).compactMap { (byte: Int) -> UInt8? in
                let word = switch byte >> 6 { case 0: present.0; case 1: present.1; case 2: present.2; default: present.3 }
                return word >> UInt64(byte & 63) & 1 == 1 ? UInt8(byte) : nil
            }
        }

        var alphabetCount: Int {
            present.0.nonzeroBitCount + present.1.nonzeroBitCount + present.2.nonzeroBitCount + present.3.nonzeroBitCount
        }
    }

    /// The bits a byte takes for an alphabet of `count` bytes.
    static func bits(alphabet count: Int) -> Int {
        count <= 1 ? 0 : Int.bitWidth - (count - 1).leadingZeroBitCount
    }

    /// Writes the section for `strings` (each a buffer of its bytes), whose bytes make
    /// `alphabet` (ascending, at most `maximumAlphabet`).
    static func write(_ strings: [UnsafeRawBufferPointer], alphabet: [UInt8], to writer: inout ByteWriter) {
        var code = InlineArray<256, UInt8>(repeating: 0)
        for (position, byte) in alphabet.enumerated() { code[Int(byte)] = UInt8(position) }
        writer.append(UInt8(alphabet.count))
        for byte in alphabet { writer.append(byte) }
        PackedNumbers.write(strings.map { Int64($0.count) }, to: &writer)
        let bits = bits(alphabet: alphabet.count)
        var packer = BitPacker(count: strings.reduce(0) { $0 + $1.count }, bits: bits)
        if bits > 0 {
            for string in strings {
                for byte in string { packer.append(UInt64(code[unchecked: Int(byte)])) }
            }
        }
        writer.append(contentsOf: packer.bytes)
    }

    /// Reads the section of `count` strings: each one's length, and their bytes back to back.
    static func read(_ count: Int, from reader: inout ByteReader) throws -> (lengths: [Int64], bytes: [UInt8]) {
        let alphabetCount = Int(try reader.readByte())
        guard alphabetCount <= maximumAlphabet else { throw reader.corrupted("packs text of \(alphabetCount) different bytes") }
        let alphabet = try reader.readBytes(alphabetCount)
        for index in alphabet.indices.dropFirst() where alphabet[index - 1] >= alphabet[index] {
            throw reader.corrupted("packs text with an alphabet out of order")
        }
        let lengths = try PackedNumbers.read(count, from: &reader)
        var total = 0
        for length in lengths {
            guard length >= 0, length <= Int64(maximumBytes - total) else { throw reader.corrupted("packs text longer than a page holds") }
            total += Int(length)
        }
        guard total == 0 || alphabetCount > 0 else { throw reader.corrupted("packs text with no alphabet") }
        let bits = bits(alphabet: alphabetCount)
        let codes = try reader.readBytes((total * bits + 7) / 8)
        // Each code's byte from a table, and the largest code checked once at the end: a check
        // and an array append for every byte were a fifth of a cache miss of a leaf of names.
        var byteOfCode = [UInt8](repeating: 0, count: maximumAlphabet)
        for (code, byte) in alphabet.enumerated() { byteOfCode[code] = byte }
        var largest: UInt64 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            largest = byteOfCode.withUnsafeBufferPointer { unpack(codes, count: total, bits: bits, into: buffer, through: $0) }
            initialized = total
        }
        guard total == 0 || largest < UInt64(alphabetCount) else { throw reader.corrupted("packs text with a byte outside its alphabet") }
        return (lengths, bytes)
    }

    /// Writes the byte of each of the `count` codes packed in `bits` bits in `codes` into
    /// `bytes`, through `byteOfCode` (128 entries), and returns the largest code. A loop of its
    /// own rather than `BitPacker.forEachValue`'s closure, whose captured largest code was
    /// stored to memory at every letter.
    private static func unpack(
        _ codes: UnsafeRawBufferPointer, count: Int, bits: Int, into bytes: UnsafeMutableBufferPointer<UInt8>,
        through byteOfCode: UnsafeBufferPointer<UInt8>
    ) -> UInt64 {
        guard count > 0 else { return 0 }
        guard bits > 0 else {
            bytes.initialize(repeating: byteOfCode[0])
            return 0
        }
        let mask = BitPacker.mask(bits: bits)
        var largest: UInt64 = 0
        BitPacker.paddedWords(codes).withUnsafeBufferPointer { words in
            var position = 0
            for index in 0..<count {
                let code = BitPacker.value(at: position, in: words, mask: mask)
                largest = max(largest, code)
                bytes[index] = byteOfCode[Int(code & 127)]
                position &+= bits
            }
        }
        return largest
    }
}
