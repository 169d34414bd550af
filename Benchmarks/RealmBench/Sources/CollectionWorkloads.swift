import AsyncRealm
import CSQLite
import Foundation
import StorageEngine

/// An object with a set of tags and a map of attributes (issue 33's workloads).
final class TaggedBenchObject: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tags: MutableSet<String>
    @Persisted var attributes: Map<String, String>
}

/// Queries into sets and maps. SQLite holds the same data in side tables, each with the
/// covering index its query needs (its best honest setup): `tags(tag, owner)` and
/// `attributes(key, value, owner)`, both `WITHOUT ROWID` primary keys.
enum CollectionWorkload: String, CaseIterable {
    /// The count of objects whose 5-element set holds a tag (`ANY tags == %@`), for 100 tags in
    /// turn; each tag is in a tenth of the sets.
    case setMembership = "SetMembership"
    /// The count of objects whose 5-entry map holds a value under a key
    /// (`attributes['k2'] == %@`), for 100 values in turn; each matches a twentieth.
    case mapLookup = "MapLookup"

    var target: Double { 0.5 }
}

/// Object `id`'s 5 tags, of 50, and 5 attributes `k0`...`k4`, each with one of 20 values.
private func tags(of id: Int) -> [String] { (0..<5).map { "tag\((id + $0 * 10) % 50)" } }
private func attributes(of id: Int) -> [(key: String, value: String)] { (0..<5).map { ("k\($0)", "v\((id / 7 + $0) % 20)") } }

/// Runs the collection workloads and returns median seconds per workload and engine.
func runCollectionWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [CollectionWorkload: [String: Double]] {
    let workloads = CollectionWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }
    var turns = TurnTaking<CollectionWorkload>()
    let repetitions = 100

    let url = URL(fileURLWithPath: directory + "/collections.realm")
    for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [TaggedBenchObject.self]))
    try realm.write {
        for id in 0..<objectCount {
            let object = TaggedBenchObject()
            object.id = id
            object.tags.insert(objectsIn: tags(of: id))
            for (key, value) in attributes(of: id) { object.attributes[key] = value }
            realm.add(object)
        }
    }
    let objects = realm.objects(TaggedBenchObject.self)
    func asyncRealmRun(_ workload: CollectionWorkload, _ run: Int) {
        var checksum = 0
        let elapsed = measure(engine: "asyncrealm") {
            for repetition in 0..<repetitions {
                switch workload {
                case .setMembership: checksum &+= objects.filter("ANY tags == %@", "tag\(repetition % 50)").count
                case .mapLookup: checksum &+= objects.filter("attributes['k2'] == %@", "v\(repetition % 20)").count
                }
            }
        }
        turns.record("asyncrealm", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    let sqlitePath = directory + "/collections.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqlitePath + suffix) }
    let db = try SQLiteObjects(path: sqlitePath, cacheBytes: PageCache.defaultCapacityBytes)
    try db.execute("CREATE TABLE tags(tag TEXT NOT NULL, owner INTEGER NOT NULL, PRIMARY KEY (tag, owner)) WITHOUT ROWID")
    try db.execute("CREATE TABLE attributes(key TEXT NOT NULL, value TEXT NOT NULL, owner INTEGER NOT NULL, PRIMARY KEY (key, value, owner)) WITHOUT ROWID")
    try insertSideTables(db, objectCount: objectCount)
    let statements = [
        CollectionWorkload.setMembership: try db.prepare("SELECT COUNT(*) FROM tags WHERE tag = ?"),
        .mapLookup: try db.prepare("SELECT COUNT(*) FROM attributes WHERE key = 'k2' AND value = ?"),
    ]
    defer { for statement in statements.values { sqlite3_finalize(statement) } }
    func sqliteRun(_ workload: CollectionWorkload, _ run: Int) {
        let select = statements[workload]!
        var checksum = 0
        let elapsed = measure(engine: "sqlite") {
            for repetition in 0..<repetitions {
                let argument = workload == .setMembership ? "tag\(repetition % 50)" : "v\(repetition % 20)"
                _ = argument.withCString { sqlite3_bind_text(select, 1, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
                if sqlite3_step(select) == SQLITE_ROW { checksum &+= Int(sqlite3_column_int64(select, 0)) }
                sqlite3_reset(select)
            }
        }
        turns.record("sqlite", workload, run: run, seconds: elapsed, checksum: checksum)
    }

    TurnTaking.alternate(runs: runs, workloads: workloads, peers: peers, asyncRealm: asyncRealmRun, sqlite: sqliteRun)
    return turns.medians()
}

/// The same tags and attributes in SQLite's side tables, in one transaction.
private func insertSideTables(_ db: SQLiteObjects, objectCount: Int) throws {
    let tag = try db.prepare("INSERT INTO tags VALUES (?, ?)")
    let attribute = try db.prepare("INSERT INTO attributes VALUES (?, ?, ?)")
    defer {
        sqlite3_finalize(tag)
        sqlite3_finalize(attribute)
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    try db.execute("BEGIN")
    for id in 0..<objectCount {
        for name in tags(of: id) {
            _ = name.withCString { sqlite3_bind_text(tag, 1, $0, -1, transient) }
            sqlite3_bind_int64(tag, 2, Int64(id))
            guard sqlite3_step(tag) == SQLITE_DONE else { throw SQLiteObjects.Failure(description: "insert tag") }
            sqlite3_reset(tag)
        }
        for (key, value) in attributes(of: id) {
            _ = key.withCString { sqlite3_bind_text(attribute, 1, $0, -1, transient) }
            _ = value.withCString { sqlite3_bind_text(attribute, 2, $0, -1, transient) }
            sqlite3_bind_int64(attribute, 3, Int64(id))
            guard sqlite3_step(attribute) == SQLITE_DONE else { throw SQLiteObjects.Failure(description: "insert attribute") }
            sqlite3_reset(attribute)
        }
    }
    try db.execute("COMMIT")
}
