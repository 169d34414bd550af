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
            case "--help", "-h":
                print("usage: realm-bench [--quick] [--runs N] [--json PATH] [--only Workload,...] [--no-peers]")
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

func format(_ value: Double) -> String { String(format: "%.4f", value) }
print("")
print("| workload | asyncrealm s | sqlite s | lmdb s | asyncrealm/sqlite | asyncrealm/lmdb | target vs sqlite |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for workload in workloads {
    if !options.peers, let ours = seconds[workload]?["asyncrealm"] { print("| \(workload.rawValue) | \(format(ours)) | | | | | |") }
    guard let row = seconds[workload], let ours = row["asyncrealm"], let sqlite = row["sqlite"], let lmdb = row["lmdb"] else { continue }
    let ratio = ours / sqlite
    let verdict = ratio <= workload.target ? "<= \(workload.target) met" : "<= \(workload.target) MISSED"
    print("| \(workload.rawValue) | \(format(ours)) | \(format(sqlite)) | \(format(lmdb)) | \(String(format: "%.2f", ratio)) | \(String(format: "%.2f", ours / lmdb)) | \(verdict) |")
}
if let ours = fileBytes["asyncrealm"], let sqlite = fileBytes["sqlite"], let lmdb = fileBytes["lmdb"] {
    let ratio = Double(ours) / Double(sqlite)
    print("| file bytes after EngineBulkInsert | \(ours) | \(sqlite) | \(lmdb) | \(String(format: "%.2f", ratio)) | \(String(format: "%.2f", Double(ours) / Double(lmdb))) | <= 0.7 \(ratio <= 0.7 ? "met" : "MISSED") |")
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
        print("| \(row.name) | \(format(ours)) | \(format(sqlite)) | \(String(format: "%.2f", ratio)) | <= \(row.target) \(ratio <= row.target ? "met" : "MISSED") |")
    }
}

print("")
print("object workloads: \(objectCount) BenchObjects (id primary key, name, age, score, active, created)")
let objectSeconds = try runObjectWorkloads(directory: directory, objectCount: objectCount, runs: options.runs, only: options.only, peers: options.peers)
printSQLiteTable(ObjectWorkload.allCases.map { ($0.rawValue, objectSeconds[$0], $0.target) })

print("")
print("encrypted object workloads: \(objectCount) BenchObjects, against SQLCipher (and our own plain times above)")
let encryptedSeconds = try runEncryptedWorkloads(directory: directory, objectCount: objectCount, runs: options.runs, only: options.only, peers: options.peers)
printEncryptedTable(encryptedSeconds, plain: objectSeconds)

print("")
print("query workloads: \(objectCount) QueryBenchObjects (BenchObject with name indexed)")
let querySeconds = try runQueryWorkloads(directory: directory, objectCount: objectCount, runs: options.runs, only: options.only, peers: options.peers)
printSQLiteTable(QueryWorkload.allCases.map { ($0.rawValue, querySeconds[$0], $0.target) })

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
    let report: [String: Any] = ["results": results, "file_bytes": fileBytes]
    let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
    try json.write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
}
