// Shared with the SQLCipher peer process (Benchmarks/SQLCipherPeer links this file), which
// builds it against libsqlcipher instead: one process cannot link both libraries, whose
// symbols are the same.
#if SQLCIPHER
import CSQLCipher
#else
import CSQLite
#endif
import Foundation

/// SQLite doing the object workloads through prepared statements, each prepared once per
/// connection.
final class SQLiteObjects {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens `path`; with `busyTimeoutMilliseconds`, a connection that meets another's lock
    /// waits that long, from its first statement on (switching to WAL and creating the table
    /// take locks too, so a timeout set after them leaves concurrent opens failing at once).
    ///
    /// With `hexKey` (SQLCipher only: 64 hex digits, a raw 256-bit key, so no key derivation
    /// runs), the database is encrypted; the key is set before anything else reads the file.
    init(path: String, cacheBytes: Int, busyTimeoutMilliseconds: Int32 = 0, hexKey: String? = nil) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw SQLiteObjects.Failure(description: "open \(path)") }
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        if let hexKey { try execute("PRAGMA key = \"x'\(hexKey)'\"") }
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
            throw SQLiteObjects.Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw SQLiteObjects.Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
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
            guard sqlite3_step(insert) == SQLITE_DONE else { throw SQLiteObjects.Failure(description: "insert: \(String(cString: sqlite3_errmsg(db)))") }
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
