import Foundation
import Testing
import TestSupport
@testable import StorageEngine

/// The packings of format version 3: leaf keys that count up as a run, tags of one or two
/// kinds, integers that step evenly, text in fewer bits a byte, and index leaves of single-key
/// buckets stored by column. Each must come back byte for byte and take the bytes it claims.
@Suite("Packed leaves")
struct PackedLeafTests {
    static func leaf(_ rows: [[RowValue]], keys: [UInt64]? = nil) -> Leaf {
        var leaf = Leaf()
        for (index, row) in rows.enumerated() {
            RowCodec.encode(row).withUnsafeBytes { leaf.append(key: keys?[index] ?? UInt64(index + 1), value: $0, overflow: false) }
        }
        return leaf
    }

    static func roundTrip(_ leaf: Leaf, _ comment: Comment? = nil) throws -> [UInt8] {
        let raw = NodeCodec.encode(leaf)
        let decoded = try RowColumnsTests.decodedLeaf(raw)
        #expect(decoded.keys == leaf.keys && decoded.ends == leaf.ends && decoded.bytes == leaf.bytes, comment)
        // A decoded leaf stays in the page cache, which counts its bytes: its array holds
        // little room past them.
        #expect(decoded.bytes.capacity <= decoded.bytes.count + decoded.bytes.count / 4 + 32, "\(decoded.bytes.capacity) for \(decoded.bytes.count) bytes \(comment?.rawValue ?? "")")
        return raw
    }

    static func randomName(_ random: inout SeededGenerator, letters: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz".utf8)) -> String {
        String(decoding: (0..<Int.random(in: 8...24, using: &random)).map { _ in letters.randomElement(using: &random)! }, as: UTF8.self)
    }

    @Test("keys that count up evenly are stored as a run, and any other keys as deltas")
    func keyRuns() throws {
        let rows = [[RowValue]](repeating: [.null], count: 300)
        let counting = try Self.roundTrip(Self.leaf(rows))
        // Count, key form, first key, step, layout, width, mode, tag: no byte per row.
        #expect(counting.count < 16, "\(counting.count) bytes")
        let stepping = try Self.roundTrip(Self.leaf(rows, keys: (0..<300).map { 1000 + UInt64($0) * 7 }))
        #expect(stepping.count < 16, "\(stepping.count) bytes")
        var keys = (0..<300).map { UInt64($0) + ($0 < 150 ? 1 : 2) }
        keys[299] = .max
        let broken = try Self.roundTrip(Self.leaf(rows, keys: keys))
        #expect(broken.count > 300, "uneven keys take a delta each")
        for count in 1...3 { _ = try Self.roundTrip(Self.leaf(Array(rows.prefix(count)), keys: (0..<count).map { UInt64.max - 2 + UInt64($0) })) }
    }

    @Test("a run of keys that would pass the largest key is refused as damaged")
    func keyRunOverflowIsRefused() throws {
        // Count 3, a run from UInt64.max - 1 stepping 1: the third key does not exist.
        var raw: [UInt8] = [3, NodeCodec.KeyForm.run.rawValue]
        var writer = ByteWriter()
        writer.appendVarint(UInt64.max - 1)
        writer.appendVarint(1)
        raw += writer.bytes + [NodeCodec.Layout.values.rawValue, 0, 0, 0]
        let error = #expect(throws: StorageError.self) { try NodeCodec.decode(kind: .leaf, raw: raw, origin: 0) }
        #expect(error?.code == .fileCorrupted)
    }

    @Test("a few bytes claiming 65,536 rows of 1,024 columns of one tag each are refused, not decoded")
    func claimedCellsAreBounded() throws {
        // Count 65,536 (a varint), keys as a run, layout 1, width 1,024, then each column's
        // mode (tags of one form) and tag (null) and an empty payload stream.
        var writer = ByteWriter()
        writer.appendVarint(65_536)
        writer.append(NodeCodec.KeyForm.run.rawValue)
        writer.appendVarint(1)
        writer.appendVarint(1)
        writer.append(NodeCodec.Layout.rowsByColumn.rawValue)
        writer.appendVarint(1024)
        for _ in 0..<1024 { writer.append(contentsOf: [PackedTags.Form.one.rawValue << 4, 0, 0]) }
        let error = #expect(throws: StorageError.self) { try NodeCodec.decode(kind: .leaf, raw: writer.bytes, origin: 0) }
        #expect(error?.code == .fileCorrupted)
        #expect(error?.message.contains("65536 rows of 1024 columns") == true, "\(String(describing: error))")
    }

    @Test("a few bytes claiming a megabyte of text in each of many columns, or rows of many packed numbers, are refused")
    func claimedBytesAreBounded() throws {
        func page(rows: Int, width: Int, column: (inout ByteWriter) -> Void) -> [UInt8] {
            var writer = ByteWriter()
            writer.appendVarint(UInt64(rows))
            writer.append(NodeCodec.KeyForm.run.rawValue)
            writer.appendVarint(1)
            writer.appendVarint(1)
            writer.append(NodeCodec.Layout.rowsByColumn.rawValue)
            writer.appendVarint(UInt64(width))
            for _ in 0..<width { column(&writer) }
            return writer.bytes
        }
        // 4 rows of 1,024 columns, each column four strings of 256 KiB of "a" (an alphabet of
        // one byte: no bits a byte): 1 GiB of text from 13 KB.
        let text = page(rows: 4, width: 1024) { writer in
            writer.append(RowColumns.Packing.text.rawValue | PackedTags.Form.one.rawValue << 4)
            writer.append(RowCodec.Tag.string.rawValue)
            writer.append(contentsOf: [1, 0x61])
            PackedNumbers.write([Int64](repeating: 1 << 18, count: 4), to: &writer)
            writer.appendVarint(0)
        }
        // 8,192 rows of 1,024 columns of the integer 2^62 as a run: 80 MB of varints from 9 KB.
        let numbers = page(rows: 8192, width: 1024) { writer in
            writer.append(RowColumns.Packing.integers.rawValue | PackedTags.Form.one.rawValue << 4)
            writer.append(RowCodec.Tag.positive.rawValue)
            PackedNumbers.write([Int64](repeating: 1 << 62, count: 3), to: &writer)
            writer.appendVarint(0)
        }
        for (name, raw) in [("text", text), ("numbers", numbers)] {
            let error = #expect(throws: StorageError.self, "\(name)") { try NodeCodec.decode(kind: .leaf, raw: raw, origin: 0) }
            #expect(error?.code == .fileCorrupted, "\(name)")
        }
    }

    @Test("a column of one tag stores it once, of two a bit a row; a Bool takes a bit")
    func tagForms() throws {
        var random = SeededGenerator(seed: 40)
        let count = 400
        let nulls = try Self.roundTrip(Self.leaf((0..<count).map { _ in [.null] }))
        let flags = try Self.roundTrip(Self.leaf((0..<count).map { _ in [.bool(Bool.random(using: &random))] }))
        let mixed = try Self.roundTrip(Self.leaf((0..<count).map { _ in [[.null, .bool(true), .int(0)].randomElement(using: &random)!] }))
        #expect(nulls.count < 16, "\(nulls.count) bytes")
        #expect(flags.count <= 16 + count / 8, "\(flags.count) bytes")
        #expect(mixed.count >= count / 2, "three tags take four bits a row: \(mixed.count) bytes")
        // Only the two tags present, in either order of first appearance.
        _ = try Self.roundTrip(Self.leaf((0..<count).map { $0 < 200 ? [.int(5)] : [.null] }))
        _ = try Self.roundTrip(Self.leaf((0..<count).map { $0 % 3 == 0 ? [.null] : [.int(-5)] }))
    }

    @Test("integers that count up evenly (ids) take no bits; uneven ones keep their offsets")
    func integerRuns() throws {
        let ids = try Self.roundTrip(Self.leaf((0..<400).map { [.int(Int64(1_000_000 + $0 * 3))] }))
        #expect(ids.count < 20, "\(ids.count) bytes")
        // Steps are taken wrapping: past Int64.max to Int64.min is a step of one, and comes back.
        let wrapping = try Self.roundTrip(Self.leaf((0..<400).map { [.int(Int64.max &- 200 &+ Int64($0))] }))
        #expect(wrapping.count < 24 + 400 / 8, "positive and negative tags, a bit a row: \(wrapping.count) bytes")
        var values = (0..<400).map { Int64($0) }
        values[399] = 1000
        let uneven = try Self.roundTrip(Self.leaf(values.map { [.int($0)] }))
        #expect(uneven.count > 400, "an uneven column keeps a width of offsets: \(uneven.count) bytes")
    }

    @Test("the text survey counts repeats in a column's first kilobyte and scales them to the whole: words that repeat estimate almost all their bytes, random names almost none")
    func surveyScalesRepeats() {
        func survey(_ strings: [String]) -> (survey: PackedText.Survey, payloadBytes: Int) {
            var survey = PackedText.Survey()
            var total = 0
            for string in strings {
                let payload = [UInt8(string.utf8.count)] + Array(string.utf8)
                total += payload.count
                payload.withUnsafeBytes { payload in survey.add(payload: payload, text: UnsafeRawBufferPointer(rebasing: payload[1...])) }
            }
            return (survey, total)
        }
        var random = SeededGenerator(seed: 43)
        let statuses = survey((0..<600).map { _ in ["pending", "shipped", "delivered"].randomElement(using: &random)! })
        #expect(statuses.payloadBytes > 4 * PackedText.Survey.surveyedBytes)
        #expect(statuses.survey.repeated > statuses.payloadBytes * 8 / 10, "\(statuses.survey.repeated) of \(statuses.payloadBytes)")
        #expect(statuses.survey.repeated <= statuses.payloadBytes)
        let names = survey((0..<600).map { _ in Self.randomName(&random) })
        #expect(names.survey.repeated < names.payloadBytes / 20, "\(names.survey.repeated) of \(names.payloadBytes)")
        // The alphabet still comes from every string, not only the surveyed ones.
        let late = survey((0..<300).map { _ in "aaaa" } + ["zzzz"])
        #expect(late.survey.alphabet == Array("az".utf8))
    }

    @Test("names of few letters are packed in five bits a letter; repeated words and wide alphabets stay bytes; all come back the same")
    func textPacking() throws {
        var random = SeededGenerator(seed: 41)
        let names = (0..<200).map { _ in Self.randomName(&random) }
        let bytes = names.reduce(0) { $0 + $1.utf8.count }
        let packed = try Self.roundTrip(Self.leaf(names.map { [.string($0)] }))
        // Five bits a letter, five bits a length, then the page's few bytes of framing.
        #expect(packed.count <= (bytes * 5 + 200 * 5) / 8 + 64, "\(packed.count) bytes for \(bytes) letters")
        // Names of a 40-letter alphabet: six bits a letter.
        let wider = (0..<200).map { _ in Self.randomName(&random, letters: Array("ABCDEFGHIJKLMNOPQRSTabcdefghijklmnopqrst".utf8)) }
        let widerBytes = wider.reduce(0) { $0 + $1.utf8.count }
        let widerPacked = try Self.roundTrip(Self.leaf(wider.map { [.string($0)] }))
        #expect(widerPacked.count <= (widerBytes * 6 + 200 * 5) / 8 + 96, "\(widerPacked.count) bytes for \(widerBytes) letters")
        // Statuses repeat: left as bytes for LZ4, which takes them to almost nothing.
        let statuses = (0..<200).map { _ in ["pending", "shipped", "delivered"].randomElement(using: &random)! }
        let statusRaw = try Self.roundTrip(Self.leaf(statuses.map { [.string($0)] }))
        let statusBytes = statuses.reduce(0) { $0 + $1.utf8.count }
        #expect(statusRaw.count > statusBytes, "repeated words stay whole: \(statusRaw.count) bytes")
        let statusPage = PageCodec.encode(kind: .leaf, raw: statusRaw)
        #expect(PageCodec.isCompressed(statusPage) && statusPage.count < statusBytes / 2, "\(statusPage.count) bytes stored")
        // More than 128 different bytes: not packed, still the same.
        let wide = (0..<200).map { index in String(decoding: (0..<20).map { UInt8(($0 * 13 + index) % 256) }, as: UTF8.self) }
        _ = try Self.roundTrip(Self.leaf(wide.map { [.string($0)] }))
        // One byte value (no bits a byte), empty strings, text mixed with other kinds and nulls.
        _ = try Self.roundTrip(Self.leaf((0..<200).map { [.string(String(repeating: "a", count: $0 % 9))] }))
        _ = try Self.roundTrip(Self.leaf((0..<200).map { _ in [.string("")] }))
        let mixed: [[RowValue]] = (0..<200).map { (index: Int) -> [RowValue] in
            let first: RowValue = index % 5 == 0 ? .null : index % 7 == 0 ? .int(Int64(index)) : .string(names[index])
            return [first, .string(names[199 - index])]
        }
        _ = try Self.roundTrip(Self.leaf(mixed))
        _ = try Self.roundTrip(Self.leaf((0..<200).map { _ in [.string("caf\u{E9} \u{1F600} " + Self.randomName(&random))] }))
    }

    @Test("text of every alphabet from 1 to 128 bytes (0 to 7 bits a byte) comes back the same, its codes crossing words at every offset")
    func textOfEveryAlphabetSize() throws {
        var random = SeededGenerator(seed: 44)
        for size in 1...PackedText.maximumAlphabet {
            let alphabet = (0..<size).map { UInt8(32 + $0) }
            // The first string uses every byte, so the alphabet is the whole of it.
            var strings = [alphabet]
            strings += (0..<Int.random(in: 1...70, using: &random)).map { _ in
                (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            }
            var writer = ByteWriter()
            let flat = strings.flatMap { $0 }
            var starts = [0]
            for string in strings { starts.append(starts.last! + string.count) }
            flat.withUnsafeBytes { all in
                let buffers = strings.indices.map { UnsafeRawBufferPointer(rebasing: all[starts[$0]..<starts[$0 + 1]]) }
                PackedText.write(buffers, alphabet: alphabet, to: &writer)
            }
            let (lengths, bytes) = try writer.bytes.withUnsafeBytes { page in
                var reader = ByteReader(page, origin: 0)
                defer { #expect(reader.isAtEnd, "alphabet of \(size)") }
                return try PackedText.read(strings.count, from: &reader)
            }
            #expect(lengths == strings.map { Int64($0.count) } && bytes == flat, "alphabet of \(size)")
        }
    }

    @Test("packed text with a code past its alphabet is refused with fileCorrupted")
    func textCodePastAlphabetIsRefused() throws {
        // Three bytes in the alphabet (two bits a byte), one string of one byte, code 3.
        var writer = ByteWriter()
        writer.append(contentsOf: [3, 0x61, 0x62, 0x63] as [UInt8])
        PackedNumbers.write([1], to: &writer)
        writer.append(0b11)
        #expect {
            try writer.bytes.withUnsafeBytes { page in
                var reader = ByteReader(page, origin: 0)
                _ = try PackedText.read(1, from: &reader)
            }
        } throws: { ($0 as? StorageError)?.code == .fileCorrupted }
    }

    @Test("a string whose length is not the shortest varint is kept whole, not packed, and comes back the same")
    func oddStringLengthKeepsBytes() throws {
        var leaf = Self.leaf((0..<50).map { _ in [.string("abcdef")] })
        // One column, tag 8, length 3 as a two-byte varint, then "abc".
        [UInt8]([1, 8, 0x83, 0x00, 0x61, 0x62, 0x63]).withUnsafeBytes { leaf.append(key: 1000, value: $0, overflow: false) }
        let raw = try Self.roundTrip(leaf)
        #expect(try RowColumnsTests.layout(of: raw, count: leaf.count) == NodeCodec.Layout.rowsByColumn.rawValue)
    }

    /// A leaf of an index's buckets, each `value` in row `key` alone.
    static func bucketLeaf(_ entries: [(value: RowValue, key: UInt64)]) -> Leaf {
        var leaf = Leaf()
        for entry in entries {
            var writer = ByteWriter()
            IndexBucket.encodeSingle(entry.value, key: entry.key, into: &writer)
            writer.bytes.withUnsafeBytes { leaf.append(key: IndexKey.of(entry.value), value: $0, overflow: false) }
        }
        return leaf
    }

    @Test("an index leaf of one row per value is stored by column: consecutive ids and row keys take almost nothing")
    func singleKeyBuckets() throws {
        let ids = Self.bucketLeaf((1...600).map { (.int(Int64($0)), UInt64($0)) })
        let raw = try Self.roundTrip(ids)
        #expect(try RowColumnsTests.layout(of: raw, count: ids.count) == NodeCodec.Layout.singleKeyBuckets.rawValue)
        #expect(raw.count < 32, "\(raw.count) bytes for \(ids.bytes.count) bytes of buckets")
        var random = SeededGenerator(seed: 42)
        let names = (0..<300).map { _ in Self.randomName(&random) }.sorted()
        var seen = Set<UInt64>()
        let unique = names.filter { seen.insert(IndexKey.of(.string($0))).inserted }
        let strings = Self.bucketLeaf(unique.enumerated().map { (.string($1), UInt64.random(in: 1...1_000_000, using: &random) + UInt64($0)) })
        let stringRaw = try Self.roundTrip(strings)
        #expect(try RowColumnsTests.layout(of: stringRaw, count: strings.count) == NodeCodec.Layout.singleKeyBuckets.rawValue)
        // The leaf's keys (each name's first eight bytes) take about seven bytes a delta; the
        // buckets' names five bits a letter, where whole they took a byte.
        let letters = unique.reduce(0) { $0 + $1.utf8.count }
        #expect(stringRaw.count < strings.encodedSize - letters * 3 / 8, "\(stringRaw.count) bytes for \(strings.encodedSize) whole")
        // A value in two rows, or a bucket with two values: the leaf keeps its buckets whole.
        var shared = IndexBucket()
        shared.setPostingList(.inline([3, 9]), for: .int(7))
        var twoValues = IndexBucket()
        twoValues.setPostingList(.inline([4]), for: .string("abcdefgh1"))
        twoValues.setPostingList(.inline([5]), for: .string("abcdefgh2"))
        for other in [shared, twoValues] {
            var leaf = Self.bucketLeaf([(.int(1), 1), (.int(2), 2)])
            other.encoded().withUnsafeBytes { leaf.append(key: .max - 1, value: $0, overflow: false) }
            let mixed = try Self.roundTrip(leaf)
            #expect(try RowColumnsTests.layout(of: mixed, count: leaf.count) == NodeCodec.Layout.values.rawValue)
        }
        // Bytes that are not a bucket as encodeSingle writes it keep the layout of whole values.
        for odd: [UInt8] in [[3, 1, 4, 5, 2, 9, 0], [3, 1, 4, 5, 2, 0x89, 0x00], [3, 1, 4, 5, 4, 9, 10], [0x83, 0x00, 1, 4, 5, 2, 9], [3, 1, 4, 5, 2]] {
            var leaf = Self.bucketLeaf([(.int(1), 1)])
            odd.withUnsafeBytes { leaf.append(key: .max - 1, value: $0, overflow: false) }
            let raw = try Self.roundTrip(leaf, "\(odd)")
            #expect(try RowColumnsTests.layout(of: raw, count: leaf.count) != NodeCodec.Layout.singleKeyBuckets.rawValue, "\(odd)")
        }
    }

    /// Random leaves of every packing: rows of names, ids, Bools and mixed kinds, or unique
    /// buckets, with keys in runs or not.
    static func randomPackedLeaf(using random: inout SeededGenerator) -> Leaf {
        let count = Int.random(in: 1...60, using: &random)
        let firstKey = UInt64.random(in: 1...1000, using: &random)
        let step = UInt64.random(in: 1...3, using: &random)
        let gaps = Int.random(in: 0..<3, using: &random) == 0
        var keys = (0..<count).map { firstKey + UInt64($0) * step }
        if gaps { keys = keys.enumerated().map { $1 + UInt64($0) * UInt64.random(in: 0...2, using: &random) } }
        keys = Array(Set(keys)).sorted()
        if Bool.random(using: &random) {
            return bucketLeaf(keys.map { (.int(Int64($0)), $0 * 2) })
        }
        let rows: [[RowValue]] = keys.map { key in
            [.int(Int64(key)), .string(randomName(&random)), .bool(Bool.random(using: &random)),
             Int.random(in: 0..<4, using: &random) == 0 ? .null : .string(["x", "yy", "zzz"].randomElement(using: &random)!)]
        }
        return leaf(rows, keys: keys)
    }

    @Test("a damaged packed leaf is refused with fileCorrupted, never read wrong or crashed on")
    func damagedPackedLeavesAreRefused() throws {
        var random = SeededGenerator(seed: 43)
        var refused = 0
        for round in 0..<3000 {
            let leaf = Self.randomPackedLeaf(using: &random)
            var raw = try Self.roundTrip(leaf, "round \(round)")
            let position = Int.random(in: 0..<raw.count, using: &random)
            raw[position] ^= UInt8.random(in: 1...255, using: &random)
            if Bool.random(using: &random) { raw.removeLast(Int.random(in: 0...min(3, raw.count - 1), using: &random)) }
            do {
                let node = try NodeCodec.decode(kind: .leaf, raw: raw, origin: 0)
                if case .leaf(let decoded) = node {
                    #expect(decoded.keys.count == decoded.ends.count && zip(decoded.keys, decoded.keys.dropFirst()).allSatisfy { $0 < $1 })
                }
            } catch let error as StorageError {
                #expect(error.code == .fileCorrupted)
                refused += 1
            }
        }
        #expect(refused > 1000)
    }
}
