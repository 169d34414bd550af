import CSQLite
import Foundation

/// SQLite through its C API with its best honest durable setup: WAL, `synchronous=FULL`,
/// prepared statements, and a page cache as large as AsyncRealm's default.
final class SQLitePeer: BenchEngine {
    let name = "sqlite"
    private let path: String
    private var db: OpaquePointer?
    private let cacheBytes: Int

    init(directory: String, cacheBytes: Int) {
        path = directory + "/bench.sqlite"
        self.cacheBytes = cacheBytes
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
            throw Failure(description: "sqlite \(what): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private func execute(_ sql: String) throws {
        try check(sqlite3_exec(db, sql, nil, nil, nil), sql)
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(db, sql, -1, &statement, nil), sql)
        return statement!
    }

    private func open() throws {
        try check(sqlite3_open(path, &db), "open")
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA cache_size=-\(cacheBytes / 1024)")
    }

    private func removeFiles() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func bulkInsert(_ data: Dataset) throws {
        close()
        try open()
        try execute("CREATE TABLE t(id INTEGER PRIMARY KEY, c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER, c4 INTEGER, c5 INTEGER, c6 INTEGER, c7 INTEGER, c8 INTEGER, c9 INTEGER)")
        let insert = try prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        try execute("BEGIN")
        for key in 1...UInt64(data.count) {
            try insertRow(insert, key: key, columns: data.row(key))
        }
        try execute("COMMIT")
    }

    private func insertRow(_ insert: OpaquePointer, key: UInt64, columns: ArraySlice<Int64>) throws {
        sqlite3_bind_int64(insert, 1, Int64(key))
        for (index, value) in columns.enumerated() { sqlite3_bind_int64(insert, Int32(index + 2), value) }
        try check(sqlite3_step(insert), "insert")
        sqlite3_reset(insert)
    }

    func scan() throws -> Int64 {
        let select = try prepare("SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM t ORDER BY id")
        defer { sqlite3_finalize(select) }
        var sum: Int64 = 0
        try execute("BEGIN")
        while sqlite3_step(select) == SQLITE_ROW {
            for column in 0..<Int32(Dataset.columnCount) { sum &+= sqlite3_column_int64(select, column) }
        }
        try execute("COMMIT")
        return sum
    }

    func randomGet(_ keys: [UInt64], column: Int) throws -> Int64 {
        let select = try prepare("SELECT c\(column) FROM t WHERE id = ?")
        defer { sqlite3_finalize(select) }
        var sum: Int64 = 0
        try execute("BEGIN")
        for key in keys {
            sqlite3_bind_int64(select, 1, Int64(key))
            if sqlite3_step(select) == SQLITE_ROW { sum &+= sqlite3_column_int64(select, 0) }
            sqlite3_reset(select)
        }
        try execute("COMMIT")
        return sum
    }

    func commitEach(_ keys: ClosedRange<UInt64>, from data: Dataset) throws {
        let insert = try prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for key in keys {
            // Autocommit: each statement is its own durable transaction.
            try insertRow(insert, key: key, columns: data.row((key - 1) % UInt64(data.count) + 1))
        }
    }

    func fileBytes() throws -> UInt64 {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
        var bytes: UInt64 = 0
        for suffix in ["", "-wal"] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            bytes += (attributes?[.size] as? UInt64) ?? 0
        }
        return bytes
    }

    func close() {
        if db != nil { sqlite3_close(db) }
        db = nil
        removeFiles()
    }
}
