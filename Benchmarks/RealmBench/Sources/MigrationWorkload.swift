import AsyncRealm
import CSQLite
import Foundation

/// The model of `Migration1M` in version 1, as stored.
enum MigrationV1 {
    final class MigrationObject: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var age: Int
        @Persisted var score: Double
    }
}

/// The model of `Migration1M` in version 2, as the app now declares it.
enum MigrationV2 {
    final class MigrationObject: Object {
        @Persisted(primaryKey: true) var id: Int
        /// Renamed from `name`.
        @Persisted var title: String
        @Persisted var age: Int
        /// Doubled by the migration block.
        @Persisted var score: Double
        /// Added.
        @Persisted var nickname: String = ""
    }
}

/// What `Migration1M` measured on one engine: the migration's seconds, and the process's peak
/// resident memory while it ran next to the resident memory before it.
struct MigrationMeasurement {
    var seconds: Double
    var residentBefore: Int
    var peakResident: Int
}

/// The process's resident memory now and its peak since `resetPeakResident()`, in bytes.
func residentMemory() -> (current: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func kilobytes(_ field: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) * 1024
    }
    return (kilobytes("VmRSS:"), kilobytes("VmHWM:"))
}

/// Starts the peak resident memory afresh (Linux: writing 5 to `clear_refs`).
func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// `Migration1M`: 1,000,000 objects migrated from version 1 to 2 (a property added, one
/// renamed, one transformed by the block), against SQLite doing the same with `ALTER TABLE`
/// and an `UPDATE` in one transaction. The files are filled first, outside the measurement.
func runMigrationWorkload(directory: String, objectCount: Int, peers: Bool) throws -> [String: MigrationMeasurement] {
    let rows = BenchRow.make(count: objectCount)
    var results: [String: MigrationMeasurement] = [:]

    let url = URL(fileURLWithPath: directory + "/migration.realm")
    do {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [MigrationV1.MigrationObject.self]))
        try realm.write {
            for row in rows {
                let object = MigrationV1.MigrationObject()
                object.id = row.id
                object.name = row.name
                object.age = row.age
                object.score = row.score
                realm.add(object)
            }
        }
    }
    let configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
        migration.renameProperty(onType: "MigrationObject", from: "name", to: "title")
        migration.enumerateObjects(ofType: "MigrationObject") { oldObject, newObject in
            newObject!["score"] = (oldObject!["score"] as! Double) * 2
        }
    }, objectTypes: [MigrationV2.MigrationObject.self])
    results["asyncrealm"] = try measureMigration { _ = try Realm(configuration: configuration) }

    if peers {
        let path = directory + "/migration.sqlite"
        let db = try SQLiteObjects(path: path, cacheBytes: 64 << 20)
        try db.execute("CREATE TABLE migration(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL)")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO migration VALUES (?, ?, ?, ?)")
        for row in rows {
            sqlite3_bind_int64(insert, 1, Int64(row.id))
            _ = row.name.withCString { sqlite3_bind_text(insert, 2, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
            sqlite3_bind_int64(insert, 3, Int64(row.age))
            sqlite3_bind_double(insert, 4, row.score)
            guard sqlite3_step(insert) == SQLITE_DONE else { throw SQLitePeer.Failure(description: "insert") }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try db.execute("COMMIT")
        results["sqlite"] = try measureMigration {
            for sql in [
                "BEGIN", "ALTER TABLE migration RENAME COLUMN name TO title",
                "ALTER TABLE migration ADD COLUMN nickname TEXT NOT NULL DEFAULT ''",
                "UPDATE migration SET score = score * 2", "PRAGMA user_version = 2", "COMMIT",
            ] { try db.execute(sql) }
        }
    }
    return results
}

private func measureMigration(_ body: () throws -> Void) throws -> MigrationMeasurement {
    let before = residentMemory().current
    resetPeakResident()
    let seconds = try measure(body)
    return MigrationMeasurement(seconds: seconds, residentBefore: before, peakResident: residentMemory().peak)
}

/// Prints `Migration1M`'s table: seconds, ratio, and resident memory.
func printMigrationTable(_ results: [String: MigrationMeasurement], objectCount: Int) {
    guard results["asyncrealm"] != nil else { return }
    let megabytes = { (bytes: Int) in String(format: "%.0f MB", Double(bytes) / 1_048_576) }
    print("")
    print("migration workload: \(objectCount) objects, version 1 to 2 (one property added, one renamed, one transformed by the block)")
    print("| engine | seconds | / sqlite | resident before | peak resident during | growth |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for engine in ["asyncrealm", "sqlite"] {
        guard let result = results[engine] else { continue }
        let ratio = results["sqlite"].map { String(format: "%.2f", result.seconds / $0.seconds) } ?? ""
        print("| \(engine) | \(format(result.seconds)) | \(ratio) | \(megabytes(result.residentBefore)) | \(megabytes(result.peakResident)) | \(megabytes(result.peakResident - result.residentBefore)) |")
    }
}
