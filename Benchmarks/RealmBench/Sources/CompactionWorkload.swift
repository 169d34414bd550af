import AsyncRealm
import CSQLite
import Foundation

/// What `Compaction` measured on one engine: the file before and after, and the seconds the
/// compaction took.
struct CompactionMeasurement {
    var bytesBefore: UInt64
    var bytesAfter: UInt64
    var seconds: Double
}

/// `Compaction`: 100,000 objects, then `commits` commits each rewriting a tenth of them (a
/// new score and name), then the file compacted: AsyncRealm by reopening it with
/// `shouldCompactOnLaunch`, SQLite by `VACUUM` (its WAL checkpointed first, so both files
/// hold all their data).
func runCompactionWorkload(directory: String, objectCount: Int, commits: Int, peers: Bool) throws -> [String: CompactionMeasurement] {
    let rows = BenchRow.make(count: objectCount)
    var generator = BenchGenerator(seed: 21)
    let rewrites = (0..<commits).map { _ in (0..<(objectCount / 10)).map { _ in Int(generator.next() % UInt64(objectCount)) + 1 } }
    var results: [String: CompactionMeasurement] = [:]

    let url = URL(fileURLWithPath: directory + "/compaction.realm")
    for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    do {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BenchObject.self]))
        try realm.write { for row in rows { realm.add(row.object()) } }
        for (round, ids) in rewrites.enumerated() {
            try realm.write {
                for id in ids {
                    let object = realm.object(ofType: BenchObject.self, forPrimaryKey: id)!
                    object.score += 1
                    object.name = "rewritten \(round) \(id)"
                }
            }
        }
    }
    let realmBefore = try fileSize(url.path)
    var compacted = false
    let realmSeconds = try measure {
        let configuration = Realm.Configuration(
            fileURL: url, shouldCompactOnLaunch: { _, _ in true }, objectTypes: [BenchObject.self])
        let realm = try Realm(configuration: configuration)
        compacted = realm.objects(BenchObject.self).count == objectCount
    }
    if !compacted { print("warning: the compacted realm lost objects") }
    results["asyncrealm"] = CompactionMeasurement(bytesBefore: realmBefore, bytesAfter: try fileSize(url.path), seconds: realmSeconds)

    guard peers else { return results }
    let path = directory + "/compaction.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let db = try SQLiteObjects(path: path, cacheBytes: 64 << 20)
    try db.insert(rows, oneTransaction: true)
    let update = try db.prepare("UPDATE objects SET score = score + 1, name = ? WHERE id = ?")
    defer { sqlite3_finalize(update) }
    for (round, ids) in rewrites.enumerated() {
        try db.execute("BEGIN")
        for id in ids {
            _ = "rewritten \(round) \(id)".withCString { sqlite3_bind_text(update, 1, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
            sqlite3_bind_int64(update, 2, Int64(id))
            guard sqlite3_step(update) == SQLITE_DONE else { throw SQLiteObjects.Failure(description: "update") }
            sqlite3_reset(update)
        }
        try db.execute("COMMIT")
    }
    try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let sqliteBefore = try fileSize(path)
    let sqliteSeconds = try measure {
        try db.execute("VACUUM")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
    results["sqlite"] = CompactionMeasurement(bytesBefore: sqliteBefore, bytesAfter: try fileSize(path), seconds: sqliteSeconds)
    return results
}

private func fileSize(_ path: String) throws -> UInt64 {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
}

/// Prints `Compaction`'s table: sizes before and after, and seconds, per engine.
func printCompactionTable(_ results: [String: CompactionMeasurement], objectCount: Int, commits: Int) {
    guard !results.isEmpty else { return }
    print("")
    print("Compaction: \(objectCount) objects, \(commits) commits each rewriting a tenth of them, then compacted")
    print("")
    print("| engine | file bytes before | file bytes after | compaction s |")
    print("| --- | ---: | ---: | ---: |")
    for engine in ["asyncrealm", "sqlite"] {
        guard let result = results[engine] else { continue }
        print("| \(engine) | \(result.bytesBefore) | \(result.bytesAfter) | \(format(result.seconds)) |")
    }
    if let ours = results["asyncrealm"], let sqlite = results["sqlite"] {
        print("| asyncrealm/sqlite | \(String(format: "%.2f", Double(ours.bytesBefore) / Double(sqlite.bytesBefore))) | \(String(format: "%.2f", Double(ours.bytesAfter) / Double(sqlite.bytesAfter))) | \(String(format: "%.2f", ours.seconds / sqlite.seconds)) |")
    }
}
