import Foundation
import Testing
import TestSupport
@testable import StorageEngine

/// Leaf pages that store their rows a column at a time (`RowColumns`, format version 3), and
/// index leaves of single-key buckets (`SingleKeyBuckets`).
@Suite("Leaves stored by column")
struct RowColumnsTests {
    /// Short samples of every kind of value (the long ones would make rows for overflow pages).
    static let samples = ValueRoundTripTests.samples.filter { RowCodec.encode([$0]).count < 200 }

    /// A leaf of `count` random rows: each of `width` columns drawn from one kind mostly (as a
    /// table's column is), with nulls, other kinds, and rows that stop early (written before a
    /// column was added).
    static func randomLeaf(count: Int, width: Int, using random: inout SeededGenerator) -> Leaf {
        var leaf = Leaf()
        var key = UInt64.random(in: 0...1000, using: &random)
        let kinds = (0..<width).map { _ in Int.random(in: 0..<7, using: &random) }
        for _ in 0..<count {
            let columns = Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 0...width, using: &random) : width
            let row: [RowValue] = (0..<columns).map { column in
                if Int.random(in: 0..<10, using: &random) == 0 { return samples.randomElement(using: &random)! }
                switch kinds[column] {
                case 0: return .int(Int64.random(in: -100...100_000, using: &random))
                case 1: return .int(Int64.random(in: Int64.min...Int64.max, using: &random))
                case 2: return .double(Double.random(in: -1...1, using: &random))
                case 3: return .string(String(repeating: "ab", count: Int.random(in: 0...9, using: &random)))
                case 4: return .timestamp(seconds: Int64.random(in: 1_600_000_000...1_700_000_000, using: &random), nanoseconds: 0)
                case 5: return .timestamp(seconds: Int64.random(in: -5_000...5_000, using: &random), nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &random))
                default:
                    // Decimals of two places, some too long or too large for a decimal.
                    let cents = Double(Int64.random(in: -1_000_000...1_000_000, using: &random)) / 100
                    return .double(Int.random(in: 0..<20, using: &random) == 0 ? cents * 1e300 : cents)
                }
            }
            key += UInt64.random(in: 1...3, using: &random)
            RowCodec.encode(row).withUnsafeBytes { leaf.append(key: key, value: $0, overflow: false) }
        }
        return leaf
    }

    /// The layout byte of an encoded leaf: after the count and the keys.
    static func layout(of raw: [UInt8], count: Int) throws -> UInt8 {
        try raw.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, origin: 0)
            _ = try reader.readVarint()
            if try reader.readByte() == NodeCodec.KeyForm.run.rawValue {
                _ = try (reader.readVarint(), reader.readVarint())
            } else {
                for _ in 0..<count { _ = try reader.readVarint() }
            }
            return try reader.readByte()
        }
    }

    static func decodedLeaf(_ raw: [UInt8]) throws -> Leaf {
        guard case .leaf(let leaf) = try NodeCodec.decode(kind: .leaf, raw: raw, origin: 0) else {
            Issue.record("a leaf decoded as a branch")
            return Leaf()
        }
        return leaf
    }

    @Test("the table of each tag's packing agrees with the switch, for every tag")
    func packingBitsByTag() {
        for tag in UInt8(0)...15 {
            #expect(RowColumns.Packing.bit(of: tag) == RowColumns.Packing.of(tag)?.rawValue ?? 0, "tag \(tag)")
        }
    }

    @Test("leaves of rows are stored by column and come back byte for byte: every kind of value, nulls, rows of fewer columns")
    func randomLeavesRoundTrip() throws {
        var random = SeededGenerator(seed: 30)
        for round in 0..<300 {
            let leaf = Self.randomLeaf(count: Int.random(in: 1...200, using: &random), width: Int.random(in: 0...12, using: &random), using: &random)
            let raw = NodeCodec.encode(leaf)
            #expect(try Self.layout(of: raw, count: leaf.count) == NodeCodec.Layout.rowsByColumn.rawValue, "round \(round)")
            let decoded = try Self.decodedLeaf(raw)
            #expect(decoded.keys == leaf.keys && decoded.ends == leaf.ends && decoded.bytes == leaf.bytes, "round \(round)")
        }
    }

    @Test("numbers packed in every width from 0 to 64 bits unpack to themselves, and take exactly the bytes their bits need")
    func bitPackingRoundTrips() throws {
        var random = SeededGenerator(seed: 32)
        for bits in 0...64 {
            for count in [0, 1, 7, 64, 65, 200] {
                let values = (0..<count).map { _ in bits == 0 ? 0 : UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64(64 - bits) }
                var packer = BitPacker(count: count, bits: bits)
                for value in values { packer.append(value) }
                let bytes = packer.bytes
                #expect(bytes.count == (count * bits + 7) / 8, "\(bits) bits, \(count) values")
                var unpacked: [UInt64] = []
                bytes.withUnsafeBytes { BitPacker.forEachValue(in: $0, count: count, bits: bits) { unpacked.append($0) } }
                #expect(unpacked == values, "\(bits) bits, \(count) values")
            }
        }
    }

    @Test("a column of small integers is packed in as many bits as its spread needs")
    func integersArePacked() throws {
        var leaf = Leaf()
        for key in 1...200 {
            // An id that counts up, an age from 18 to 81, a constant.
            let row: [RowValue] = [.int(Int64(1_000_000 + key)), .int(Int64(18 + key % 64)), .int(7)]
            RowCodec.encode(row).withUnsafeBytes { leaf.append(key: UInt64(key), value: $0, overflow: false) }
        }
        let raw = NodeCodec.encode(leaf)
        // Per row: 8 bits of id, 6 of age, none for the constant, and three tags of four bits.
        let columns = 200 * (8 + 6 + 0 + 12) / 8
        #expect(raw.count < 200 + columns + 64, "\(raw.count) bytes for rows of \(leaf.bytes.count)")
        let decoded = try Self.decodedLeaf(raw)
        #expect(decoded.bytes == leaf.bytes && decoded.ends == leaf.ends)
    }

    @Test("doubles that are decimals and timestamps are packed, and come back bit for bit; -0, NaN and long fractions keep their bytes")
    func decimalsAndTimestampsArePacked() throws {
        var leaf = Leaf()
        for key in 1...200 {
            // A price in cents, a date of whole seconds in one year.
            let row: [RowValue] = [.double(Double(key * 37 % 100_000) / 100), .timestamp(seconds: 1_650_000_000 + Int64(key * 9973 % 31_536_000), nanoseconds: 0)]
            RowCodec.encode(row).withUnsafeBytes { leaf.append(key: UInt64(key), value: $0, overflow: false) }
        }
        let raw = NodeCodec.encode(leaf)
        // Per row: 17 bits of cents, 25 of seconds, none of nanoseconds, two tags.
        #expect(raw.count < 200 + 200 * (17 + 25 + 8) / 8 + 64, "\(raw.count) bytes for rows of \(leaf.bytes.count)")
        #expect(try Self.decodedLeaf(raw).bytes == leaf.bytes)
        for odd in [-0.0, .nan, -.nan, .infinity, 0.1 + 0.2, .leastNonzeroMagnitude, 1e300, Double(Int64.max)] {
            var mixed = leaf
            RowCodec.encode([.double(odd), .timestamp(seconds: .min, nanoseconds: 999_999_999)]).withUnsafeBytes { mixed.append(key: 1000, value: $0, overflow: false) }
            let decoded = try Self.decodedLeaf(NodeCodec.encode(mixed))
            #expect(decoded.bytes == mixed.bytes && decoded.ends == mixed.ends, "\(odd)")
        }
    }

    @Test("values that are not rows exactly as the row codec writes them keep the layout of whole values, and come back the same")
    func otherValuesAreStoredWhole() throws {
        let canonical = RowCodec.encode([.int(5), .string("x"), .int(-3)])
        var oddTag = RowCodec.encode([.int(5)])
        oddTag[1] |= 0x30  // the spare half of the tag byte set
        let cases: [(String, [UInt8])] = [
            ("a longer varint than needed", [1, 4, 0x85, 0x00]),
            ("a positive integer of zero", [1, 4, 0]),
            ("a magnitude past Int64.max", [1, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            ("the spare tag half set", oddTag),
            ("bytes after the last payload", canonical + [9]),
            ("an empty value", []),
            ("an unknown tag", [1, 14]),
        ]
        for (name, odd) in cases {
            var leaf = Leaf()
            canonical.withUnsafeBytes { leaf.append(key: 1, value: $0, overflow: false) }
            odd.withUnsafeBytes { leaf.append(key: 2, value: $0, overflow: false) }
            let raw = NodeCodec.encode(leaf)
            #expect(try Self.layout(of: raw, count: 2) == NodeCodec.Layout.values.rawValue, "\(name)")
            let decoded = try Self.decodedLeaf(raw)
            #expect(decoded.bytes == leaf.bytes && decoded.ends == leaf.ends, "\(name)")
        }
    }

    @Test("a damaged leaf stored by column is refused with fileCorrupted, never read wrong or crashed on")
    func damagedColumnsAreRefused() throws {
        var random = SeededGenerator(seed: 31)
        var refused = 0
        for _ in 0..<2000 {
            let leaf = Self.randomLeaf(count: Int.random(in: 1...40, using: &random), width: Int.random(in: 1...6, using: &random), using: &random)
            var raw = NodeCodec.encode(leaf)
            let position = Int.random(in: 0..<raw.count, using: &random)
            raw[position] ^= UInt8.random(in: 1...255, using: &random)
            if Bool.random(using: &random) { raw.removeLast(Int.random(in: 0...min(3, raw.count - 1), using: &random)) }
            do {
                _ = try NodeCodec.decode(kind: .leaf, raw: raw, origin: 0)
            } catch let error as StorageError {
                #expect(error.code == .fileCorrupted)
                refused += 1
            }
        }
        // (A flipped byte inside a string or a double is a valid page with another value: the
        // page checksum is what catches it in a file.)
        #expect(refused > 500)
    }

    static func contents(of file: InMemoryFile) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(try file.size()))
        try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
        return bytes
    }

    @Test("a file of another format version (older or newer) is refused with an error naming both versions, and left as it was", arguments: [1, 2, FileHeader.formatVersion + 1])
    func otherFormatVersionIsRefused(format: UInt32) throws {
        let file = InMemoryFile()
        do {
            let database = try Database.open(file: file)
            try database.write { try $0.createTable("t").insert([.int(1)]) }
        }
        // Both header slots rewritten as the other format version, their checksums made to match.
        for offset in FileHeader.slotOffsets {
            var slot = [UInt8](repeating: 0, count: FileHeader.slotBytes)
            try slot.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
            slot.withUnsafeMutableBytes { $0.storeBytes(of: format.littleEndian, toByteOffset: 16, as: UInt32.self) }
            let checksum = slot.withUnsafeBytes { FileHeader.checksum($0, at: offset) }
            slot.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
            try file.write(slot, at: offset)
        }
        let before = try Self.contents(of: file)
        let error = #expect(throws: StorageError.self) { try Database.open(file: file) }
        #expect(error?.code == .unsupportedFormat)
        let age = format < FileHeader.formatVersion ? "an older" : "a newer"
        #expect(error?.message.contains("format version \(format), \(age) format") == true, "\(String(describing: error))")
        #expect(error?.message.contains("(format version \(FileHeader.formatVersion))") == true, "\(String(describing: error))")
        #expect(try Self.contents(of: file) == before, "the refused file is unchanged")
    }
}
