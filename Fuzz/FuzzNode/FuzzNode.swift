// A libFuzzer target: arbitrary bytes decoded as the raw body of a tree page (a leaf in any
// of its layouts, or a branch), the way a page read from a file is, after its checksum. A body
// that does not decode must be a thrown error, never a crash, a hang or an address sanitizer
// report; a leaf that decodes must come back the same when written again and read back, so
// that a page the writer makes from it holds what the reader saw. The file fuzzer (FuzzFile)
// reaches page bodies only through a checksum it must first get right; this target decodes
// them directly, so every mutation tests the decoders of the leaf layouts and their packings
// (`RowColumns`, `SingleKeyBuckets`, `PackedNumbers`, `PackedTags`, `PackedText`). Built with
// `-sanitize=fuzzer,address -D FUZZING` by `scripts/fuzz.sh`; built plainly, it replays the
// inputs named on its command line, and `FuzzNode --seeds DIR` writes the seed corpus
// (Fuzz/corpus/node).
import Foundation
import FuzzSupport
import StorageEngine

/// Runs one input: its first byte chooses the page kind (even a leaf, odd a branch), the rest
/// is the body.
func runOne(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let raw = Array(input.dropFirst())
    guard case .leaf(let leaf)? = try? NodeCodec.decode(kind: first & 1 == 0 ? .leaf : .branch, raw: raw, origin: 0) else { return }
    let again: Node
    do {
        again = try NodeCodec.decode(kind: .leaf, raw: NodeCodec.encode(leaf), origin: 0)
    } catch {
        fatalError("a leaf that decoded was written into a page that does not decode: \(error)")
    }
    guard case .leaf(let back) = again, back.keys == leaf.keys, back.ends == leaf.ends, back.bytes == leaf.bytes else {
        fatalError("a leaf that decoded came back changed from the page written from it")
    }
}

/// A leaf of `rows`, keyed from `firstKey` on by `step` (uneven when the step is above one).
func rowLeaf(_ rows: [[RowValue]], firstKey: UInt64 = 1, step: UInt64 = 1) -> Leaf {
    var leaf = Leaf()
    for (index, row) in rows.enumerated() {
        let key = firstKey + UInt64(index) * step + (step > 1 ? UInt64(index % 2) : 0)
        RowCodec.encode(row).withUnsafeBytes { leaf.append(key: key, value: $0, overflow: false) }
    }
    return leaf
}

/// A name of lowercase letters that looks random, the same on every run.
func seedName(_ index: Int) -> String {
    let letters: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    var bytes: [UInt8] = []
    for position in 0..<(8 + index % 9) {
        let mixed: Int = index &* 7919 &+ position &* 104_729 &+ (position &* position) &* 31
        bytes.append(letters[mixed % 26])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Objects as an app stores them: ids that count up, names, ages, scores, Bools, dates.
func objectRow(_ index: Int) -> [RowValue] {
    let score: Double = Double(index * 1234 % 100_000) / 100
    let date = RowValue.timestamp(seconds: 1_600_000_000 + Int64(index * 86_413), nanoseconds: 0)
    return [.int(Int64(index + 1)), .string(seedName(index)), .int(Int64(index * 37 % 90)), .double(score), .bool(index % 3 == 0), date]
}

/// Nulls among values, repeated words, a NaN, binary data, and some rows of fewer columns.
func mixedRow(_ index: Int) -> [RowValue] {
    let word: RowValue = index % 4 == 0 ? .null : .string(["open", "closed", "pending"][index % 3])
    let number: RowValue = .double(index % 5 == 0 ? .nan : Double(index) * 0.1)
    let row: [RowValue] = [.int(Int64(-index)), word, number, .binary([UInt8(index), 1, 2])]
    return Array(row.prefix(index % 7 == 0 ? 2 : 4))
}

/// A unique index's leaf: a bucket per value, each holding the value in one row, as the
/// index writes it (`varint(length)`, the value as a row of one column, 2, `varint(row)`).
func bucketLeaf(_ values: [RowValue]) -> Leaf {
    var entries: [(key: UInt64, value: RowValue, row: UInt64)] = []
    for (index, value) in values.enumerated() { entries.append((IndexKey.of(value), value, UInt64(index + 1))) }
    entries.sort { $0.key < $1.key }
    var leaf = Leaf()
    var last: UInt64?
    for entry in entries where entry.key != last {
        let encoded = RowCodec.encode([entry.value])
        var writer = ByteWriter()
        writer.appendVarint(UInt64(encoded.count))
        encoded.withUnsafeBytes { writer.append($0) }
        writer.append(2)
        writer.appendVarint(entry.row)
        writer.bytes.withUnsafeBytes { leaf.append(key: entry.key, value: $0, overflow: false) }
        last = entry.key
    }
    return leaf
}

/// Writes the seeds: leaves of every layout and packing, as the writer makes them.
func writeSeeds(to directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var whole = Leaf()
    for index in 0..<10 {
        [UInt8](repeating: UInt8(index), count: index).withUnsafeBytes { whole.append(key: UInt64(index * 5 + 1), value: $0, overflow: false) }
    }
    let leaves: [(String, Leaf)] = [
        ("objects", rowLeaf((0..<40).map(objectRow))),
        ("mixed", rowLeaf((0..<30).map(mixedRow), firstKey: 100, step: 3)),
        ("buckets-ids", bucketLeaf((0..<40).map { .int(Int64($0 + 1)) })),
        ("buckets-names", bucketLeaf((0..<40).map { .string(seedName($0)) })),
        ("whole-values", whole),
    ]
    for (name, leaf) in leaves {
        try Data([0] + NodeCodec.encode(leaf)).write(to: URL(fileURLWithPath: directory + "/seed-" + name))
    }
}

#if FUZZING
/// The program's `main` (see `runFuzzer`): libFuzzer, calling `runOne` with each input.
@_cdecl("FuzzNode_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in
        runOne(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
}
#else
/// Replays the inputs (files, or directories of them) named on the command line, or with
/// `--seeds DIR` writes the seed corpus.
@main
enum Replay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--seeds", arguments.count == 2 { return try writeSeeds(to: arguments[1]) }
        try replayInputs(arguments, runOne)
    }
}
#endif
