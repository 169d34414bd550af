import AsyncRealm
import CSQLite
import Foundation

/// The model of the object workloads.
final class BenchObject: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var active: Bool
    @Persisted var created: Date
}

/// One row of the object workloads' data.
struct BenchRow {
    let id: Int
    let name: String
    let age: Int
    let score: Double
    let active: Bool
    let created: Double

    static func make(count: Int, firstID: Int = 1, seed: UInt64 = 9) -> [BenchRow] {
        var generator = BenchGenerator(seed: seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return (0..<count).map { index in
            let length = 8 + Int(generator.next() % 17)
            let name = String((0..<length).map { _ in letters[Int(generator.next() % 26)] })
            return BenchRow(
                id: firstID + index, name: name, age: Int(generator.next() % 100),
                score: Double(generator.next() % 1_000_000) / 100, active: generator.next() % 2 == 0,
                created: 1_600_000_000 + Double(generator.next() % 100_000_000))
        }
    }

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
        case .fullScan: return 0.5
        case .count: return 0.05
        case .primaryKeyLookup: return 0.7
        case .delete: return 0.5
        }
    }
}

/// Runs the object workloads and returns median seconds per workload and engine.
func runObjectWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [ObjectWorkload: [String: Double]] {
    let rows = BenchRow.make(count: objectCount)
    let extra = BenchRow.make(count: 1000 * (runs + 1), firstID: objectCount + 1, seed: 10)
    var generator = BenchGenerator(seed: 11)
    let lookupIDs = (0..<objectCount).map { _ in Int(generator.next() % UInt64(objectCount)) + 1 }
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
                    seconds[engine] = try measure(body)
                } else if let db {
                    seconds[engine] = try measure { try peer(db) }
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

/// SQLite doing the object workloads through prepared statements, each prepared once per
/// connection.
final class SQLiteObjects {
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens `path`; with `busyTimeoutMilliseconds`, a connection that meets another's lock
    /// waits that long, from its first statement on (switching to WAL and creating the table
    /// take locks too, so a timeout set after them leaves concurrent opens failing at once).
    init(path: String, cacheBytes: Int, busyTimeoutMilliseconds: Int32 = 0) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw SQLitePeer.Failure(description: "open \(path)") }
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        for sql in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA cache_size=-\(cacheBytes / 1024)",
                    "CREATE TABLE IF NOT EXISTS objects(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, active INTEGER NOT NULL, created REAL NOT NULL)"] {
            try execute(sql)
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw SQLitePeer.Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw SQLitePeer.Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement!
    }

    /// `sql` prepared, the first time it is asked for, and kept; reset after its last use.
    func cached(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    func insert(_ rows: [BenchRow], oneTransaction: Bool) throws {
        let insert = try cached("INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)")
        if oneTransaction { try execute("BEGIN") }
        for row in rows {
            sqlite3_bind_int64(insert, 1, Int64(row.id))
            _ = row.name.withCString { sqlite3_bind_text(insert, 2, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
            sqlite3_bind_int64(insert, 3, Int64(row.age))
            sqlite3_bind_double(insert, 4, row.score)
            sqlite3_bind_int64(insert, 5, row.active ? 1 : 0)
            sqlite3_bind_double(insert, 6, row.created)
            guard sqlite3_step(insert) == SQLITE_DONE else { throw SQLitePeer.Failure(description: "insert: \(String(cString: sqlite3_errmsg(db)))") }
            sqlite3_reset(insert)
        }
        if oneTransaction { try execute("COMMIT") }
    }

    func readRow(_ statement: OpaquePointer?) -> Int {
        let id = Int(sqlite3_column_int64(statement, 0))
        let name = String(cString: sqlite3_column_text(statement, 1))
        let age = Int(sqlite3_column_int64(statement, 2))
        let score = sqlite3_column_double(statement, 3)
        let active = sqlite3_column_int64(statement, 4) != 0
        let created = Date(timeIntervalSince1970: sqlite3_column_double(statement, 5))
        return id &+ name.utf8.count &+ age &+ Int(score) &+ (active ? 1 : 0) &+ Int(created.timeIntervalSince1970)
    }

    func scan() throws -> Int {
        let select = try cached("SELECT id, name, age, score, active, created FROM objects ORDER BY id")
        defer { sqlite3_reset(select) }
        var checksum = 0
        while sqlite3_step(select) == SQLITE_ROW { checksum &+= readRow(select) }
        return checksum
    }

    func count() throws -> Int {
        let select = try cached("SELECT COUNT(*) FROM objects")
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return 0 }
        return Int(sqlite3_column_int64(select, 0))
    }

    func lookup(_ ids: [Int]) throws -> Int {
        let select = try cached("SELECT id, name, age, score, active, created FROM objects WHERE id = ?")
        var checksum = 0
        for id in ids {
            sqlite3_bind_int64(select, 1, Int64(id))
            if sqlite3_step(select) == SQLITE_ROW { checksum &+= readRow(select) }
            sqlite3_reset(select)
        }
        return checksum
    }

    func deleteAll() throws {
        try execute("BEGIN")
        try execute("DELETE FROM objects")
        try execute("COMMIT")
    }
}
