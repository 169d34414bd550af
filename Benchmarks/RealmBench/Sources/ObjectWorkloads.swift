import AsyncRealm
import CSQLite
import Foundation
import StorageEngine

/// The model of the object workloads.
final class BenchObject: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var active: Bool
    @Persisted var created: Date
}

extension BenchRow {
    func object() -> BenchObject {
        let object = BenchObject()
        object.id = id
        object.name = name
        object.age = age
        object.score = score
        object.active = active
        object.created = Date(timeIntervalSince1970: created)
        return object
    }
}

/// The object workloads of issue 3, on AsyncRealm and on SQLite doing the same work.
enum ObjectWorkload: String, CaseIterable {
    case batchWrite = "BatchWrite"
    case simpleWrite = "SimpleWrite"
    case fullScan = "FullScan"
    case count = "Count"
    case primaryKeyLookup = "PrimaryKeyLookup"
    case delete = "Delete"

    var target: Double {
        switch self {
        case .batchWrite: return 0.5
        case .simpleWrite: return 1.0
        case .fullScan: return 0.35
        case .count: return 0.002
        case .primaryKeyLookup: return 0.08
        case .delete: return 0.2
        }
    }
}

/// Runs the object workloads and returns median seconds per workload and engine.
///
/// `fileBytes` gets each engine's file size after the last run's `BatchWrite`: SQLite's
/// database and WAL after a checkpoint, AsyncRealm's file and redo log with the file's unused
/// tail given back (`Database.trimFile`), as `EngineBulkInsert` measures them.
func runObjectWorkloads(
    directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool, fileBytes: inout [String: UInt64]
) throws -> [ObjectWorkload: [String: Double]] {
    let data = ObjectWorkloadData(objectCount: objectCount, runs: runs)
    let (rows, extra, lookupIDs) = (data.rows, data.extra, data.lookupIDs)
    var results: [ObjectWorkload: [String: Double]] = [:]
    let workloads = ObjectWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }

    // Each workload runs on both engines back to back, and `SimpleWrite` in chunks that take
    // turns, so that both meet the machine as it is then: a slow spell of a virtual machine
    // (its neighbours, its disk) lasts from milliseconds to seconds, and a run of every workload
    // on one engine and then on the other put whole workloads on one side of it. The engine
    // that goes first alternates.
    let realmURL = URL(fileURLWithPath: directory + "/objects.realm")
    func freshRealm() throws -> Realm {
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: realmURL.path + suffix) }
        return try Realm(configuration: Realm.Configuration(fileURL: realmURL, objectTypes: [BenchObject.self]))
    }
    let sqlitePath = directory + "/objects.sqlite"
    func freshSQLite() throws -> SQLiteObjects {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlitePath + suffix) }
        return try SQLiteObjects(path: sqlitePath, cacheBytes: 64 << 20)
    }
    var samples: [String: [ObjectWorkload: [Double]]] = [:]
    var checksum = 0
    for run in 0...runs {
        let realm = try freshRealm()
        let db = peers ? try freshSQLite() : nil
        /// Seconds of `body` on AsyncRealm and of `peer` on SQLite, one after the other.
        func turns(first turn: Int, _ body: () throws -> Void, _ peer: (SQLiteObjects) throws -> Void) throws -> [String: Double] {
            var seconds: [String: Double] = [:]
            for engine in turn % 2 == 0 ? ["asyncrealm", "sqlite"] : ["sqlite", "asyncrealm"] {
                if engine == "asyncrealm" {
                    seconds[engine] = try measure(engine: engine, body)
                } else if let db {
                    seconds[engine] = try measure(engine: engine) { try peer(db) }
                }
            }
            return seconds
        }
        func record(_ workload: ObjectWorkload, _ seconds: [String: Double]) {
            guard run > 0 else { return }
            for (engine, value) in seconds { samples[engine, default: [:]][workload, default: []].append(value) }
        }
        record(.batchWrite, try turns(first: run, {
            try realm.write { for row in rows { realm.add(row.object()) } }
        }, { try $0.insert(rows, oneTransaction: true) }))
        if run == runs {
            try Database.open(path: realmURL.path).trimFile()
            fileBytes["asyncrealm"] = [realmURL.path, realmURL.path + ".log"].reduce(0) { $0 + ((try? bytesOfFile(at: $1)) ?? 0) }
            if let db {
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                fileBytes["sqlite"] = [sqlitePath, sqlitePath + "-wal"].reduce(0) { $0 + ((try? bytesOfFile(at: $1)) ?? 0) }
            }
        }

        var simple: [String: Double] = [:]
        let chunk = 100
        for (index, start) in stride(from: run * 1000, to: run * 1000 + 1000, by: chunk).enumerated() {
            let part = extra[start..<(start + chunk)]
            let seconds = try turns(first: run + index, {
                for row in part { try realm.write { realm.add(row.object()) } }
            }, { try $0.insert(Array(part), oneTransaction: false) })
            simple.merge(seconds, uniquingKeysWith: +)
        }
        record(.simpleWrite, simple)

        record(.fullScan, try turns(first: run, {
            for object in realm.objects(BenchObject.self) {
                checksum &+= object.id &+ object.name.utf8.count &+ object.age &+ Int(object.score) &+ (object.active ? 1 : 0) &+ Int(object.created.timeIntervalSince1970)
            }
        }, { checksum &+= try $0.scan() }))
        record(.count, try turns(first: run, {
            for _ in 0..<1000 { checksum &+= realm.objects(BenchObject.self).count }
        }, { db in for _ in 0..<1000 { checksum &+= try db.count() } }))
        record(.primaryKeyLookup, try turns(first: run, {
            for id in lookupIDs { checksum &+= realm.object(ofType: BenchObject.self, forPrimaryKey: id)?.name.utf8.count ?? 0 }
        }, { checksum &+= try $0.lookup(lookupIDs) }))
        record(.delete, try turns(first: run, {
            try realm.write { realm.delete(realm.objects(BenchObject.self)) }
        }, { try $0.deleteAll() }))
    }
    if checksum == 42 { print("") }  // keeps the reads from being optimised away
    for (engine, byWorkload) in samples {
        for (workload, values) in byWorkload { results[workload, default: [:]][engine] = median(values) }
    }
    return results.filter { workloads.contains($0.key) }
}

/// The size of the file at `path`.
func bytesOfFile(at path: String) throws -> UInt64 {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0
}
