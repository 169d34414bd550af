import AsyncRealm
import CSQLite
import Foundation

/// The model of the query workloads: `BenchObject` with `name` indexed.
final class QueryBenchObject: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var active: Bool
    @Persisted var created: Date

    func checksum() -> Int {
        id &+ name.utf8.count &+ age &+ Int(score) &+ (active ? 1 : 0) &+ Int(created.timeIntervalSince1970)
    }
}

/// The query workloads of issue 4, on AsyncRealm and on SQLite with an index on `name`.
enum QueryWorkload: String, CaseIterable {
    case simpleQuery = "SimpleQuery"
    case rangeCount = "RangeCount"
    case stringContains = "StringContains"
    case sortTwoKeys = "SortTwoKeys"
    case sum = "Sum"

    var target: Double {
        switch self {
        case .simpleQuery: return 0.5
        case .rangeCount: return 0.08
        case .stringContains, .sortTwoKeys: return 0.7
        case .sum: return 0.04
        }
    }
}

/// Runs the query workloads and returns median seconds per workload and engine.
func runQueryWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [QueryWorkload: [String: Double]] {
    let workloads = QueryWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }
    let rows = BenchRow.make(count: objectCount)
    var generator = BenchGenerator(seed: 12)
    let probes = (0..<1000).map { _ in rows[Int(generator.next() % UInt64(rows.count))].name }
    var turns = TurnTaking<QueryWorkload>()

    // AsyncRealm
    let url = URL(fileURLWithPath: directory + "/queries.realm")
    for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [QueryBenchObject.self]))
    try realm.write {
        for row in rows {
            let object = QueryBenchObject()
            object.id = row.id
            object.name = row.name
            object.age = row.age
            object.score = row.score
            object.active = row.active
            object.created = Date(timeIntervalSince1970: row.created)
            realm.add(object)
        }
    }
    let objects = realm.objects(QueryBenchObject.self)
    func asyncRealmRun(_ workload: QueryWorkload, _ run: Int) {
        var checksum = 0
        let elapsed = measure(engine: "asyncrealm") {
            switch workload {
            case .simpleQuery:
                for name in probes {
                    for object in objects.filter("name == %@ AND age > 30", name) { checksum &+= object.checksum() }
                }
            case .rangeCount:
                for _ in 0..<100 { checksum &+= objects.filter("age BETWEEN {20, 40}").count }
            case .stringContains:
                for object in objects.filter("name CONTAINS[c] 'ab'") { checksum &+= object.name.utf8.count }
            case .sortTwoKeys:
                for object in objects.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")]) {
                    checksum &+= object.age &+ object.name.utf8.count
                }
            case .sum:
                for _ in 0..<100 { checksum &+= Int(objects.sum(ofProperty: "score") as Double) }
            }
        }
        turns.record("asyncrealm", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    // SQLite
    let sqlitePath = directory + "/queries.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlitePath + suffix) }
    let db = try SQLiteObjects(path: sqlitePath, cacheBytes: 64 << 20)
    try db.execute("CREATE INDEX objects_name ON objects(name)")
    try db.insert(rows, oneTransaction: true)
    func sqliteRun(_ workload: QueryWorkload, _ run: Int) throws {
        var checksum = 0
        let elapsed = try measure(engine: "sqlite") {
            switch workload {
            case .simpleQuery:
                let select = try db.prepare("SELECT id, name, age, score, active, created FROM objects WHERE name = ? AND age > 30")
                defer { sqlite3_finalize(select) }
                for name in probes {
                    _ = name.withCString { sqlite3_bind_text(select, 1, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
                    while sqlite3_step(select) == SQLITE_ROW { checksum &+= db.readRow(select) }
                    sqlite3_reset(select)
                }
            case .rangeCount:
                let select = try db.prepare("SELECT COUNT(*) FROM objects WHERE age BETWEEN 20 AND 40")
                defer { sqlite3_finalize(select) }
                for _ in 0..<100 {
                    if sqlite3_step(select) == SQLITE_ROW { checksum &+= Int(sqlite3_column_int64(select, 0)) }
                    sqlite3_reset(select)
                }
            case .stringContains:
                // LIKE is case-insensitive for ASCII, as CONTAINS[c] is.
                let select = try db.prepare("SELECT name FROM objects WHERE name LIKE '%ab%'")
                defer { sqlite3_finalize(select) }
                while sqlite3_step(select) == SQLITE_ROW { checksum &+= String(cString: sqlite3_column_text(select, 0)).utf8.count }
            case .sortTwoKeys:
                let select = try db.prepare("SELECT age, name FROM objects ORDER BY age, name")
                defer { sqlite3_finalize(select) }
                while sqlite3_step(select) == SQLITE_ROW {
                    checksum &+= Int(sqlite3_column_int64(select, 0)) &+ String(cString: sqlite3_column_text(select, 1)).utf8.count
                }
            case .sum:
                let select = try db.prepare("SELECT SUM(score) FROM objects")
                defer { sqlite3_finalize(select) }
                for _ in 0..<100 {
                    if sqlite3_step(select) == SQLITE_ROW { checksum &+= Int(sqlite3_column_double(select, 0)) }
                    sqlite3_reset(select)
                }
            }
        }
        turns.record("sqlite", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    try TurnTaking.alternate(runs: runs, workloads: workloads, peers: peers, asyncRealm: asyncRealmRun, sqlite: sqliteRun)
    return turns.medians()
}
