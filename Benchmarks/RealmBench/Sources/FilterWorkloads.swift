import AsyncRealm
import CSQLite
import Foundation

/// Aggregates and counts through a filter (issue 30), on properties that no index covers on
/// either side: `BenchObject` has no index but its primary key, nor has SQLite's table.
enum FilterWorkload: String, CaseIterable {
    /// `sum(score)` over the objects with `age BETWEEN 20 AND 40`, a hundred times.
    case filteredSum = "FilteredSum"
    /// The count of objects whose `name BEGINSWITH 'a'` (case-sensitive), a hundred times.
    case filteredCount = "FilteredCount"

    var target: Double {
        switch self {
        case .filteredSum: return 0.1
        case .filteredCount: return 0.5
        }
    }
}

/// Runs the filter workloads and returns median seconds per workload and engine.
func runFilterWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [FilterWorkload: [String: Double]] {
    let workloads = FilterWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }
    let rows = BenchRow.make(count: objectCount)
    var turns = TurnTaking<FilterWorkload>()
    let repetitions = 100

    let url = URL(fileURLWithPath: directory + "/filters.realm")
    for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BenchObject.self]))
    try realm.write { realm.add(rows.map { $0.object() }) }
    let objects = realm.objects(BenchObject.self)
    func asyncRealmRun(_ workload: FilterWorkload, _ run: Int) {
        var checksum = 0
        let elapsed = measure(engine: "asyncrealm") {
            for _ in 0..<repetitions {
                switch workload {
                case .filteredSum: checksum &+= Int(objects.filter("age BETWEEN {20, 40}").sum(ofProperty: "score") as Double)
                case .filteredCount: checksum &+= objects.filter("name BEGINSWITH 'a'").count
                }
            }
        }
        turns.record("asyncrealm", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    let sqlitePath = directory + "/filters.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlitePath + suffix) }
    let db = try SQLiteObjects(path: sqlitePath, cacheBytes: 64 << 20)
    try db.insert(rows, oneTransaction: true)
    // GLOB is SQLite's case-sensitive match, as BEGINSWITH is (LIKE ignores ASCII case).
    let statements = [
        FilterWorkload.filteredSum: try db.prepare("SELECT SUM(score) FROM objects WHERE age BETWEEN 20 AND 40"),
        .filteredCount: try db.prepare("SELECT COUNT(*) FROM objects WHERE name GLOB 'a*'"),
    ]
    defer { for statement in statements.values { sqlite3_finalize(statement) } }
    func sqliteRun(_ workload: FilterWorkload, _ run: Int) {
        let select = statements[workload]!
        var checksum = 0
        let elapsed = measure(engine: "sqlite") {
            for _ in 0..<repetitions {
                if sqlite3_step(select) == SQLITE_ROW {
                    checksum &+= workload == .filteredSum ? Int(sqlite3_column_double(select, 0)) : Int(sqlite3_column_int64(select, 0))
                }
                sqlite3_reset(select)
            }
        }
        turns.record("sqlite", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    TurnTaking.alternate(runs: runs, workloads: workloads, peers: peers, asyncRealm: asyncRealmRun, sqlite: sqliteRun)
    return turns.medians()
}
