import CLMDB
import Foundation

/// LMDB with its default durable flags: integer keys, the ten columns as 80 raw bytes, and
/// `MDB_APPEND` for the bulk load (its own fast path for increasing keys).
final class LMDBPeer: BenchEngine {
    let name = "lmdb"
    private let directory: String
    private var environment: OpaquePointer?
    private var dbi: MDB_dbi = 0

    init(directory: String) {
        self.directory = directory + "/bench.lmdb"
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func check(_ code: Int32, _ what: String) throws {
        guard code == 0 else { throw Failure(description: "lmdb \(what): \(String(cString: mdb_strerror(code)))") }
    }

    private func open() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try check(mdb_env_create(&environment), "env_create")
        try check(mdb_env_set_mapsize(environment, 8 << 30), "set_mapsize")
        try check(mdb_env_open(environment, directory, 0, 0o644), "env_open")
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction), "txn_begin")
        try check(mdb_dbi_open(transaction, nil, UInt32(MDB_INTEGERKEY | MDB_CREATE), &dbi), "dbi_open")
        try check(mdb_txn_commit(transaction), "commit")
    }

    private func put(_ transaction: OpaquePointer?, key: UInt64, columns: ArraySlice<Int64>, flags: Int32) throws {
        var key = key
        var row = Array(columns)
        try withUnsafeMutableBytes(of: &key) { keyBytes in
            try row.withUnsafeMutableBytes { rowBytes in
                var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                var dataValue = MDB_val(mv_size: rowBytes.count, mv_data: rowBytes.baseAddress)
                try check(mdb_put(transaction, dbi, &keyValue, &dataValue, UInt32(flags)), "put")
            }
        }
    }

    func bulkInsert(_ data: Dataset) throws {
        close()
        try open()
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction), "txn_begin")
        for key in 1...UInt64(data.count) {
            try put(transaction, key: key, columns: data.row(key), flags: MDB_APPEND)
        }
        try check(mdb_txn_commit(transaction), "commit")
    }

    func scan() throws -> Int64 {
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "txn_begin")
        defer { mdb_txn_abort(transaction) }
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(transaction, dbi, &cursor), "cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var sum: Int64 = 0
        var operation = MDB_FIRST
        while mdb_cursor_get(cursor, &key, &value, operation) == 0 {
            let columns = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
            for column in 0..<Dataset.columnCount {
                sum &+= columns.loadUnaligned(fromByteOffset: column * 8, as: Int64.self)
            }
            operation = MDB_NEXT
        }
        return sum
    }

    func randomGet(_ keys: [UInt64], column: Int) throws -> Int64 {
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "txn_begin")
        defer { mdb_txn_abort(transaction) }
        var sum: Int64 = 0
        for var key in keys {
            try withUnsafeMutableBytes(of: &key) { keyBytes in
                var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                var value = MDB_val()
                try check(mdb_get(transaction, dbi, &keyValue, &value), "get")
                sum &+= UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
                    .loadUnaligned(fromByteOffset: column * 8, as: Int64.self)
            }
        }
        return sum
    }

    func commitEach(_ keys: ClosedRange<UInt64>, from data: Dataset) throws {
        for key in keys {
            var transaction: OpaquePointer?
            try check(mdb_txn_begin(environment, nil, 0, &transaction), "txn_begin")
            try put(transaction, key: key, columns: data.row((key - 1) % UInt64(data.count) + 1), flags: 0)
            try check(mdb_txn_commit(transaction), "commit")
        }
    }

    func fileBytes() throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")
        return (attributes[.size] as? UInt64) ?? 0
    }

    func close() {
        if environment != nil { mdb_env_close(environment) }
        environment = nil
        try? FileManager.default.removeItem(atPath: directory)
    }
}
