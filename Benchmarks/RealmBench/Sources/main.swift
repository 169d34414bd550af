// realm-bench: runs each workload on AsyncRealm, SQLite and LMDB in one process and prints
// medians and the ratios AsyncRealm / peer.
//
//     swift run -c release realm-bench [--quick] [--runs N] [--json PATH] [--only NAME,...] [--no-peers]
//
// `--no-peers` runs AsyncRealm alone (no ratios): for profiling it without the peers' samples.
import Foundation
import StorageEngine

struct Options {
    var quick = false
    var runs = 5
    var jsonPath: String?
    var only: Set<String>?
    var peers = true
    var scale: Int?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.quick = true
            case "--runs": options.runs = max(1, Int(iterator.next() ?? "") ?? options.runs)
            case "--json": options.jsonPath = iterator.next()
            case "--only": options.only = Set((iterator.next() ?? "").split(separator: ",").map(String.init))
            case "--no-peers": options.peers = false
            case "--scale": options.scale = Int(iterator.next() ?? "").map { max(1, $0) }
            case "--help", "-h":
                print("usage: realm-bench [--quick] [--runs N] [--json PATH] [--only Workload,...] [--no-peers] [--scale OBJECTS]")
                exit(0)
            default:
                FileHandle.standardError.write(Data("realm-bench: unknown argument '\(argument)'\n".utf8))
                exit(2)
            }
        }
        return options
    }
}

let options = Options.parse(CommandLine.arguments)
let rowCount = options.quick ? 20_000 : 1_000_000
let randomReads = options.quick ? 10_000 : 100_000
let commits = options.quick ? 100 : 1_000
let directory = NSTemporaryDirectory() + "realm-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

print("realm-bench: \(rowCount) rows x \(Dataset.columnCount) Int64 columns, \(options.runs) runs after a warm-up, medians")
let machine = MachineProfile.measure(directory: directory)
print(machine.description)
let data = Dataset(count: rowCount)
let readKeys = data.randomKeys(randomReads, seed: 7)
let engines: [any BenchEngine] = [AsyncRealmEngine(directory: directory)] + (options.peers ? [
    SQLitePeer(directory: directory, cacheBytes: PageCache.defaultCapacityBytes),
    LMDBPeer(directory: directory),
] : [])
let workloads = Workload.allCases.filter { options.only?.contains($0.rawValue) ?? true }
let objectCount = options.quick ? 5_000 : 100_000

var seconds: [Workload: [String: Double]] = [:]
var fileBytes: [String: UInt64] = [:]
var checksums: [Workload: [String: Int64]] = [:]

func measure(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try clock.measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// The engines take turns, run by run, so that a slow spell of the machine (a virtual machine's
// neighbours) falls on all of them rather than on whichever ran then. The bulk load runs first:
// every other workload reads the database it leaves.
if !workloads.isEmpty {
    var samples: [String: [Workload: [Double]]] = [:]
    for run in 0...options.runs {
        for engine in engines {
            let elapsed = try measure { try engine.bulkInsert(data) }
            if run > 0 { samples[engine.name, default: [:]][.bulkInsert, default: []].append(elapsed) }
        }
    }
    for engine in engines { fileBytes[engine.name] = try engine.fileBytes() }
    var nextCommitKey: [String: UInt64] = [:]
    for workload in workloads where workload != .bulkInsert {
        for run in 0...options.runs {
            for engine in engines {
                var checksum: Int64 = 0
                let elapsed = try measure {
                    switch workload {
                    case .scan: checksum = try engine.scan()
                    case .randomGet: checksum = try engine.randomGet(readKeys, column: 3)
                    case .commit:
                        let first = nextCommitKey[engine.name] ?? UInt64(rowCount) + 1
                        nextCommitKey[engine.name] = first + UInt64(commits)
                        try engine.commitEach(first...(first + UInt64(commits) - 1), from: data)
                    case .bulkInsert: break
                    }
                }
                if run > 0 { samples[engine.name, default: [:]][workload, default: []].append(elapsed) }
                checksums[workload, default: [:]][engine.name] = checksum
            }
        }
    }
    for engine in engines {
        for (workload, values) in samples[engine.name] ?? [:] { seconds[workload, default: [:]][engine.name] = median(values) }
        engine.close()
        print("  \(engine.name): done")
    }
}

// The engines must have read the same data.
for (workload, sums) in checksums where Set(sums.values).count > 1 {
    print("warning: \(workload.rawValue) checksums differ between engines: \(sums)")
}

/// Seconds, to four decimals, or six for a time under a hundredth of a second.
func format(_ value: Double) -> String { String(format: value < 0.01 ? "%.6f" : "%.4f", value) }

/// A ratio to two decimals, or three under 0.1, where targets have three (0.002, 0.04).
func formatRatio(_ value: Double) -> String { String(format: value < 0.1 ? "%.3f" : "%.2f", value) }
print("")
print("| workload | asyncrealm s | sqlite s | lmdb s | asyncrealm/sqlite | asyncrealm/lmdb | target vs sqlite |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for workload in workloads {
    if !options.peers, let ours = seconds[workload]?["asyncrealm"] { print("| \(workload.rawValue) | \(format(ours)) | | | | | |") }
    guard let row = seconds[workload], let ours = row["asyncrealm"], let sqlite = row["sqlite"], let lmdb = row["lmdb"] else { continue }
    let ratio = ours / sqlite
    let verdict = ratio <= workload.target ? "<= \(workload.target) met" : "<= \(workload.target) MISSED"
    print("| \(workload.rawValue) | \(format(ours)) | \(format(sqlite)) | \(format(lmdb)) | \(formatRatio(ratio)) | \(formatRatio(ours / lmdb)) | \(verdict) |")
}
if let ours = fileBytes["asyncrealm"], let sqlite = fileBytes["sqlite"], let lmdb = fileBytes["lmdb"] {
    let ratio = Double(ours) / Double(sqlite)
    print("| file bytes after EngineBulkInsert | \(ours) | \(sqlite) | \(lmdb) | \(formatRatio(ratio)) | \(formatRatio(Double(ours) / Double(lmdb))) | <= 0.5 \(ratio <= 0.5 ? "met" : "MISSED") |")
}

/// Prints how each workload's time grew from `from` to `to` objects, on each engine.
func printGrowthTable(_ rows: [(name: String, base: [String: Double]?, scaled: [String: Double]?)], from: Int, to: Int) {
    let ideal = Double(to) / Double(from)
    print("")
    print("growth from \(from) to \(to) objects (linear: \(String(format: "%.1f", ideal))x; SimpleWrite adds the same 1,000 objects at either size)")
    print("")
    print("| workload | asyncrealm s | asyncrealm s | growth | sqlite s | sqlite s | growth | asyncrealm/sqlite at \(to) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows {
        guard let base = row.base, let scaled = row.scaled, let ours = base["asyncrealm"], let oursScaled = scaled["asyncrealm"] else { continue }
        let theirs = base["sqlite"], theirsScaled = scaled["sqlite"]
        let growth = { (a: Double?, b: Double?) in a.flatMap { a in b.map { String(format: "%.1fx", $0 / a) } } ?? "" }
        let ratio = theirsScaled.map { formatRatio(oursScaled / $0) } ?? ""
        print("| \(row.name) | \(format(ours)) | \(format(oursScaled)) | \(growth(ours, oursScaled)) | \(theirs.map(format) ?? "") | \(theirsScaled.map(format) ?? "") | \(growth(theirs, theirsScaled)) | \(ratio) |")
    }
}

/// Prints each engine's peak resident memory during its measured runs, at both sizes.
func printMemoryTable(base: [String: ResidentMemory.Peak], scaled: [String: ResidentMemory.Peak], from: Int, to: Int) {
    let mebibytes = { (bytes: Int) in String(format: "%.0f MiB", Double(bytes) / 1_048_576) }
    print("")
    print("peak resident memory of the process while each engine's measured work ran (both engines live in one process, so a peak holds the other's resident data too; growth is what the work added above the memory resident when it began)")
    print("")
    print("| engine | peak at \(from) | growth at \(from) | peak at \(to) | growth at \(to) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for engine in Set(base.keys).union(scaled.keys).sorted() {
        let small = base[engine], large = scaled[engine]
        print("| \(engine) | \(small.map { mebibytes($0.peakBytes) } ?? "") | \(small.map { mebibytes($0.growthBytes) } ?? "") | \(large.map { mebibytes($0.peakBytes) } ?? "") | \(large.map { mebibytes($0.growthBytes) } ?? "") |")
    }
}

/// Prints a table of workloads run on AsyncRealm and SQLite: seconds, ratio, target.
func printSQLiteTable(_ rows: [(name: String, seconds: [String: Double]?, target: Double)]) {
    guard rows.contains(where: { $0.seconds != nil }) else { return }
    print("")
    print("| workload | asyncrealm s | sqlite s | asyncrealm/sqlite | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for row in rows {
        guard let ours = row.seconds?["asyncrealm"] else { continue }
        guard let sqlite = row.seconds?["sqlite"] else {
            print("| \(row.name) | \(format(ours)) | | | |")
            continue
        }
        let ratio = ours / sqlite
        print("| \(row.name) | \(format(ours)) | \(format(sqlite)) | \(formatRatio(ratio)) | <= \(row.target) \(ratio <= row.target ? "met" : "MISSED") |")
    }
}

/// A kind of workload measured on AsyncRealm and on SQLite, with a target ratio.
protocol SQLiteComparedWorkload: CaseIterable, Hashable, RawRepresentable where RawValue == String {
    var target: Double { get }
}

extension ObjectWorkload: SQLiteComparedWorkload {}
extension QueryWorkload: SQLiteComparedWorkload {}
extension FilterWorkload: SQLiteComparedWorkload {}
extension CollectionWorkload: SQLiteComparedWorkload {}

/// Prints `heading`, runs `body` (workloads at some count of objects) and prints their table.
func comparedTable<Workload: SQLiteComparedWorkload>(
    _ heading: String, _ body: () throws -> [Workload: [String: Double]]
) rethrows -> [Workload: [String: Double]] {
    print("")
    print(heading)
    let seconds = try body()
    printSQLiteTable(Workload.allCases.map { ($0.rawValue, seconds[$0], $0.target) })
    return seconds
}

func objectWorkloadTable(count: Int) throws -> [ObjectWorkload: [String: Double]] {
    var fileBytes: [String: UInt64] = [:]
    let seconds = try comparedTable("object workloads: \(count) BenchObjects (id primary key, name, age, score, active, created)") {
        try runObjectWorkloads(directory: directory, objectCount: count, runs: options.runs, only: options.only, peers: options.peers, fileBytes: &fileBytes)
    }
    if let ours = fileBytes["asyncrealm"], let sqlite = fileBytes["sqlite"] {
        let ratio = Double(ours) / Double(sqlite)
        print("| file bytes after BatchWrite | \(ours) | \(sqlite) | \(formatRatio(ratio)) | <= 0.5 \(ratio <= 0.5 ? "met" : "MISSED") |")
    }
    return seconds
}

func queryWorkloadTable(count: Int) throws -> [QueryWorkload: [String: Double]] {
    try comparedTable("query workloads: \(count) QueryBenchObjects (BenchObject with name indexed)") {
        try runQueryWorkloads(directory: directory, objectCount: count, runs: options.runs, only: options.only, peers: options.peers)
    }
}

func filterWorkloadTable(count: Int) throws -> [FilterWorkload: [String: Double]] {
    try comparedTable("filter workloads: \(count) BenchObjects, no index on the filtered properties on either side") {
        try runFilterWorkloads(directory: directory, objectCount: count, runs: options.runs, only: options.only, peers: options.peers)
    }
}

func collectionWorkloadTable(count: Int) throws -> [CollectionWorkload: [String: Double]] {
    try comparedTable("collection workloads: \(count) objects with a 5-element MutableSet<String> and a 5-entry Map<String, String>; SQLite with side tables and covering indexes") {
        try runCollectionWorkloads(directory: directory, objectCount: count, runs: options.runs, only: options.only, peers: options.peers)
    }
}

/// Each workload's seconds at the base count and at the scaled one, for the growth table.
func growthRows<Workload: SQLiteComparedWorkload>(
    _ base: [Workload: [String: Double]], _ scaled: [Workload: [String: Double]]
) -> [(name: String, base: [String: Double]?, scaled: [String: Double]?)] {
    Workload.allCases.map { ($0.rawValue, base[$0], scaled[$0]) }
}

_ = ResidentMemory.takePeaks()
let objectSeconds = try objectWorkloadTable(count: objectCount)

print("")
print("encrypted object workloads: \(objectCount) BenchObjects, against SQLCipher and against a plain realm doing the same work in the same turns")
let encryptedSeconds = try runEncryptedWorkloads(directory: directory, objectCount: objectCount, runs: options.runs, only: options.only, peers: options.peers)
printEncryptedTable(encryptedSeconds, durableWrite: machine.durableWrite)

let querySeconds = try queryWorkloadTable(count: objectCount)
let filterSeconds = try filterWorkloadTable(count: objectCount)
let collectionSeconds = try collectionWorkloadTable(count: objectCount)
let baseMemory = ResidentMemory.takePeaks()

if let scale = options.scale {
    print("")
    print("scaled: the object, query and filter workloads again at \(scale) objects")
    let scaled = growthRows(objectSeconds, try objectWorkloadTable(count: scale))
        + growthRows(querySeconds, try queryWorkloadTable(count: scale))
        + growthRows(filterSeconds, try filterWorkloadTable(count: scale))
    printGrowthTable(scaled, from: objectCount, to: scale)
    printMemoryTable(base: baseMemory, scaled: ResidentMemory.takePeaks(), from: objectCount, to: scale)
}

print("")
print("concurrency workloads: \(objectCount) BenchObjects")
let concurrency = try await runConcurrencyWorkloads(directory: directory, objectCount: objectCount, quick: options.quick, only: options.only, peers: options.peers)
printConcurrencyTable(concurrency)

if options.only?.contains("Migration1M") ?? true {
    let count = options.quick ? 20_000 : 1_000_000
    printMigrationTable(try runMigrationWorkload(directory: directory, objectCount: count, peers: options.peers), objectCount: count)
}

if options.only?.contains("Compaction") ?? true {
    let commits = options.quick ? 50 : 1000
    printCompactionTable(try runCompactionWorkload(directory: directory, objectCount: objectCount, commits: commits, peers: options.peers), objectCount: objectCount, commits: commits)
}

if let path = options.jsonPath {
    var results: [[String: Any]] = []
    for workload in workloads {
        for (engine, value) in seconds[workload] ?? [:] {
            results.append(["workload": workload.rawValue, "engine": engine, "seconds": value])
        }
    }
    for (workload, engines) in objectSeconds {
        for (engine, value) in engines {
            results.append(["workload": workload.rawValue, "engine": engine, "seconds": value])
        }
    }
    for (workload, engines) in querySeconds {
        for (engine, value) in engines {
            results.append(["workload": workload.rawValue, "engine": engine, "seconds": value])
        }
    }
    for (workload, engines) in filterSeconds {
        for (engine, value) in engines {
            results.append(["workload": workload.rawValue, "engine": engine, "seconds": value])
        }
    }
    for (workload, engines) in collectionSeconds {
        for (engine, value) in engines {
            results.append(["workload": workload.rawValue, "engine": engine, "seconds": value])
        }
    }
    let report: [String: Any] = [
        "results": results, "file_bytes": fileBytes,
        "machine": [
            "processor": machine.processor, "cores": machine.cores, "system_call_ns": machine.systemCall,
            "fcntl_lock_unlock_ns": machine.lockAndUnlock, "dependent_load_64mib_ns": machine.dependentLoad,
            "durable_4kib_write_ns": machine.durableWrite,
        ] as [String: Any],
    ]
    let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
    try json.write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
}
