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

    // The engines take turns, run by run, so that a slow spell of the machine (a virtual
    // machine's neighbours) falls on both rather than on whichever ran then.
    let realmURL = URL(fileURLWithPath: directory + "/objects.realm")
    func freshRealm() throws -> Realm {
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: realmURL.path + suffix) }
        return try Realm(configuration: Realm.Configuration(fileURL: realmURL, objectTypes: [BenchObject.self]))
    }
    var samples: [String: [ObjectWorkload: [Double]]] = [:]
    func asyncRealmRun(_ run: Int) throws {
        var realm: Realm? = try freshRealm()
        let batch = try measure { try realm!.write { for row in rows { realm!.add(row.object()) } } }
        if run > 0 { samples["asyncrealm", default: [:]][.batchWrite, default: []].append(batch) }
        let simple = try measure {
            for row in extra[(run * 1000)..<(run * 1000 + 1000)] { try realm!.write { realm!.add(row.object()) } }
        }
        if run > 0 { samples["asyncrealm", default: [:]][.simpleWrite, default: []].append(simple) }
        var checksum = 0
        let scan = measure {
            for object in realm!.objects(BenchObject.self) {
                checksum &+= object.id &+ object.name.utf8.count &+ object.age &+ Int(object.score) &+ (object.active ? 1 : 0) &+ Int(object.created.timeIntervalSince1970)
            }
        }
        if run > 0 { samples["asyncrealm", default: [:]][.fullScan, default: []].append(scan) }
        let count = measure { for _ in 0..<1000 { checksum &+= realm!.objects(BenchObject.self).count } }
        if run > 0 { samples["asyncrealm", default: [:]][.count, default: []].append(count) }
        let lookup = measure {
            for id in lookupIDs { checksum &+= realm!.object(ofType: BenchObject.self, forPrimaryKey: id)?.name.utf8.count ?? 0 }
        }
        if run > 0 { samples["asyncrealm", default: [:]][.primaryKeyLookup, default: []].append(lookup) }
        let delete = try measure { try realm!.write { realm!.delete(realm!.objects(BenchObject.self)) } }
        if run > 0 { samples["asyncrealm", default: [:]][.delete, default: []].append(delete) }
        realm = nil
        if checksum == 42 { print("") }  // keeps the reads from being optimised away
    }
    let sqlitePath = directory + "/objects.sqlite"
    func sqliteRun(_ run: Int) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlitePath + suffix) }
        let db = try SQLiteObjects(path: sqlitePath, cacheBytes: 64 << 20)
        let batch = try measure { try db.insert(rows, oneTransaction: true) }
        if run > 0 { samples["sqlite", default: [:]][.batchWrite, default: []].append(batch) }
        let simple = try measure { try db.insert(Array(extra[(run * 1000)..<(run * 1000 + 1000)]), oneTransaction: false) }
        if run > 0 { samples["sqlite", default: [:]][.simpleWrite, default: []].append(simple) }
        let scan = try measure { _ = try db.scan() }
        if run > 0 { samples["sqlite", default: [:]][.fullScan, default: []].append(scan) }
        let count = try measure { for _ in 0..<1000 { _ = try db.count() } }
        if run > 0 { samples["sqlite", default: [:]][.count, default: []].append(count) }
        let lookup = try measure { _ = try db.lookup(lookupIDs) }
        if run > 0 { samples["sqlite", default: [:]][.primaryKeyLookup, default: []].append(lookup) }
        let delete = try measure { try db.deleteAll() }
        if run > 0 { samples["sqlite", default: [:]][.delete, default: []].append(delete) }
    }
    for run in 0...runs {
        try asyncRealmRun(run)
        if peers { try sqliteRun(run) }
    }
    for (engine, byWorkload) in samples {
        for (workload, values) in byWorkload { results[workload, default: [:]][engine] = median(values) }
    }
    return results.filter { workloads.contains($0.key) }
}

/// SQLite doing the object workloads through prepared statements.
final class SQLiteObjects {
    private var db: OpaquePointer?

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

    deinit { sqlite3_close(db) }

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

    func insert(_ rows: [BenchRow], oneTransaction: Bool) throws {
        let insert = try prepare("INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
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
        let select = try prepare("SELECT id, name, age, score, active, created FROM objects ORDER BY id")
        defer { sqlite3_finalize(select) }
        var checksum = 0
        while sqlite3_step(select) == SQLITE_ROW { checksum &+= readRow(select) }
        return checksum
    }

    func count() throws -> Int {
        let select = try prepare("SELECT COUNT(*) FROM objects")
        defer { sqlite3_finalize(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return 0 }
        return Int(sqlite3_column_int64(select, 0))
    }

    func lookup(_ ids: [Int]) throws -> Int {
        let select = try prepare("SELECT id, name, age, score, active, created FROM objects WHERE id = ?")
        defer { sqlite3_finalize(select) }
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
