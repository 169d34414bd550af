// A libFuzzer target: arbitrary bytes opened as a realm file, and every row of every table
// read, decoding every column, through the engine's throwing reads; then opened through
// AsyncRealm, which reads the stored schema. A damaged file must be a thrown error, never a
// crash, a hang, an endless loop or an address sanitizer report. Built with
// `-sanitize=fuzzer,address -D FUZZING` by `scripts/fuzz.sh`; built plainly, it replays the
// inputs named on its command line. `FuzzFile --seed PATH` writes a small valid realm file (Fuzz/corpus/file/seed-20-items)
// to start a corpus from, and `FuzzFile --encrypted-seed PATH` one encrypted with `fuzzKey`
// (seed-20-items-encrypted): every input is read both without a key and with that one.
import AsyncRealm
import Foundation
import FuzzSupport
import StorageEngine

final class FuzzItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var when: Date?
    /// After an optional: the typed reads find it after a null read in place (`readTyped`).
    @Persisted var rank: Int
    @Persisted var values: List<Int>
}

/// Where each input is written to be opened: one file, rewritten for each input.
let scratch = NSTemporaryDirectory() + "asyncrealm-fuzz-file-\(getpid()).realm"

/// The key of the encrypted seed; inputs are also read with it.
let fuzzKey = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) })

/// Runs one input: the bytes as a whole realm file, read as a plain file and as one
/// encrypted with `fuzzKey`.
func runOne(_ bytes: UnsafeRawBufferPointer) {
    for key in [nil, fuzzKey] {
        for suffix in ["", ".lock", ".log"] { unlink(scratch + suffix) }
        guard FileManager.default.createFile(atPath: scratch, contents: Data(bytes)) else { fatalError("cannot write \(scratch)") }
        readEveryRow(key: key)
        openAsRealm(key: key)
    }
}

/// Every row of every table, every column decoded, through the engine; then every page of
/// the file, index trees and their posting trees among them, through the verifier.
func readEveryRow(key: Data?) {
    guard let database = try? Database.open(path: scratch, create: false, encryptionKey: key.map { try! EncryptionKey(Array($0)) }),
          let snapshot = try? database.snapshot() else { return }
    defer { _ = try? database.verify() }
    for name in snapshot.tableNames {
        guard let table = try? snapshot.table(name) else { continue }
        _ = try? table.scan { _, row in
            _ = try RowCodec.decode(row.bytes)
            readTyped(row.bytes)
            return true
        }
        readByColumns(table)
        readByKeys(table)
    }
}

/// Every column of `row` through the typed reads a property getter makes (`RowCodec.integer`
/// and its siblings), in order, in place only and then with walks: where the general decode
/// reads the row, a value a typed read gives must be the one it decoded.
func readTyped(_ row: UnsafeRawBufferPointer) {
    let decoded = try? RowCodec.decode(row)
    for inPlaceOnly in [true, false] {
        var cursor = ColumnCursor()
        for column in 0..<min((decoded?.count ?? 4) + 1, 64) {
            let expected = decoded.flatMap { column < $0.count ? $0[column] : nil }
            func agree(_ value: RowValue) {
                guard let expected, !sameValue(expected, value) else { return }
                fatalError("column \(column): a typed read gave \(value), the decode \(expected)")
            }
            let null = inPlaceOnly ? RowCodec.isNullInPlace(column, of: row, cursor: &cursor) : RowCodec.isNull(column, of: row, cursor: &cursor)
            if null {
                agree(.null)
            } else if let value = RowCodec.integer(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) {
                agree(.int(value))
            } else if let value = RowCodec.bool(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) {
                agree(.bool(value))
            } else if let value = RowCodec.double(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) {
                agree(.double(value))
            } else if let (seconds, nanoseconds) = RowCodec.timestamp(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) {
                agree(.timestamp(seconds: seconds, nanoseconds: nanoseconds))
            } else if let bytes = RowCodec.string(column, of: row, cursor: &cursor, inPlaceOnly: inPlaceOnly) {
                agree(.string(String(storedUTF8: bytes)))
            }
        }
    }
}

/// Whether two decoded values are the same, doubles by their bits (a NaN is not equal to itself).
func sameValue(_ first: RowValue, _ second: RowValue) -> Bool {
    if case .double(let a) = first, case .double(let b) = second { return a.bitPattern == b.bitPattern }
    return first == second
}

/// Looks rows up one by one, in place and copied out (`copyRow`), which must agree: the
/// copy is what the lookup read, or says it did not fit. The copies go through a
/// `LeafDirectory`, as a realm's lookups by primary key do: what it learns from damaged leaves
/// is only ever prefetched from.
func readByKeys(_ table: some TableReading) {
    var room = [UInt8](repeating: 0, count: 48)
    let directory = LeafDirectory()
    for key in UInt64(0)..<24 {
        directory.prefetch(key)
        // Only lookups that both end without an error are compared.
        guard let inPlace = Result(catching: { try table.withRow(key) { Array($0.bytes) } }).ok,
              let copy = Result(catching: { try room.withUnsafeMutableBytes { try table.copyRow(key, into: $0, noting: directory) } }).ok
        else { continue }
        switch (copy, inPlace) {
        case (.copied(let count), let row?) where Array(room[..<count]) == row: break
        case (.tooLong, let row?) where row.count > room.count: break
        case (.absent, nil): break
        default: fatalError("row \(key): copied out as \(copy), read in place as \(inPlace.map { "\($0.count) bytes" } ?? "absent")")
        }
    }
}

/// The table's first columns read as packed columns, a leaf at a time: totals, a count and
/// the keys of a filter (`LeafColumn`, `ColumnFilter`, leaves handed over unread).
func readByColumns(_ table: some TableReading) {
    for column in 0..<4 {
        _ = try? table.total(ofColumn: column, kind: .integer, where: nil)
        _ = try? table.total(ofColumn: column, kind: .double, where: .integerRange(column: 0, range: -5...5, nullMatches: true))
        _ = try? table.count(where: .string(column: column, test: { $0?.first == UInt8(ascii: "i") }))
        _ = try? table.keys(where: .or([.integerSet(column: column, values: [1, 2], nullMatches: false), .not(.constant(true))]))
        _ = try? table.integerRange(ofColumn: column, where: nil)
    }
}

/// The file through AsyncRealm: the schema stored in it is read and checked.
func openAsRealm(key: Data?) {
    guard let realm = try? Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: scratch), encryptionKey: key)) else { return }
    _ = realm.schema
}

/// Writes a small valid realm file, with objects, an index and a list, to seed a corpus: cut
/// after its last byte in use (a file grows in chunks of zeros, which a fuzzer would only
/// spend its time in). Written with `asyncWrite`, which commits into the file itself rather
/// than the redo log, so the file alone holds everything.
func writeSeed(to path: String, key: Data? = nil) async throws {
    for suffix in ["", ".lock", ".log"] { unlink(path + suffix) }
    let url = URL(fileURLWithPath: path)
    do {
        let realm = try await Realm.open(configuration: Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [FuzzItem.self]))
        try await realm.asyncWrite {
            for id in 0..<20 {
                let item = FuzzItem()
                item.id = id - 10
                // Letters without repeats for LZ4 to find, so that the names are stored as
                // packed text (see `PackedText`).
                item.name = String(decoding: (0..<(6 + id % 5)).map { seedLetter(id, $0) }, as: UTF8.self)
                item.when = id % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(id))
                item.rank = id * 1000
                item.values.append(objectsIn: 0..<id)
                realm.add(item)
            }
        }
    }
    var data = try Data(contentsOf: url)
    let used = ((data.lastIndex { $0 != 0 } ?? 0) / 4096 + 1) * 4096
    data.removeSubrange(Swift.min(used, data.count)...)
    try data.write(to: url)
    for suffix in [".lock", ".log"] { unlink(path + suffix) }
    let kept = try Realm(configuration: Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [FuzzItem.self])).objects(FuzzItem.self).count
    guard kept == 20 else { fatalError("the cut seed holds \(kept) objects, not 20") }
    unlink(path + ".lock")
}

/// A lowercase letter that looks random, the same on every run: letter `position` of item
/// `id`'s name in the seed (splitmix64's mixing of the two).
extension Result {
    /// The success value, or nil on failure.
    var ok: Success? { try? get() }
}

func seedLetter(_ id: Int, _ position: Int) -> UInt8 {
    var mixed = UInt64(id * 64 + position + 1) &* 0x9E37_79B9_7F4A_7C15
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return UInt8(97 + (mixed ^ (mixed >> 31)) % 26)
}

#if FUZZING
/// The program's `main` (see `runFuzzer`): libFuzzer, calling `runOne` with each input.
@_cdecl("FuzzFile_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in
        runOne(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
}
#else
/// Replays the inputs (files, or directories of them) named on the command line, or with
/// `--seed PATH` writes a seed file.
@main
enum Replay {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--seed", arguments.count == 2 { return try await writeSeed(to: arguments[1]) }
        if arguments.first == "--encrypted-seed", arguments.count == 2 { return try await writeSeed(to: arguments[1], key: fuzzKey) }
        try replayInputs(arguments, runOne)
    }
}
#endif
