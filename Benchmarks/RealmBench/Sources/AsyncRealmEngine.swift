import Foundation
import StorageEngine

/// AsyncRealm's storage engine, driven through the interface the object layer uses.
final class AsyncRealmEngine: BenchEngine {
    let name = "asyncrealm"
    private let path: String
    private var database: Database?

    init(directory: String) {
        path = directory + "/bench.realm"
    }

    private func removeFiles() {
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private static func row(_ columns: ArraySlice<Int64>) -> [RowValue] {
        columns.map { .int($0) }
    }

    func bulkInsert(_ data: Dataset) throws {
        database = nil
        removeFiles()
        let database = try Database.open(path: path)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in 1...UInt64(data.count) {
                try table.insert(Self.row(data.row(key)), forKey: key)
            }
        }
        self.database = database
    }

    func scan() throws -> Int64 {
        let table = try database!.snapshot().table("t")
        var sum: Int64 = 0
        try table.scan { _, row in
            try row.forEachColumn { _, value in
                if case .int(let number) = value { sum &+= number }
            }
            return true
        }
        return sum
    }

    func randomGet(_ keys: [UInt64], column: Int) throws -> Int64 {
        let table = try database!.snapshot().table("t")
        var sum: Int64 = 0
        for key in keys {
            if case .int(let number) = try table.value(key, column: column) { sum &+= number }
        }
        return sum
    }

    func commitEach(_ keys: ClosedRange<UInt64>, from data: Dataset) throws {
        for key in keys {
            try database!.write { transaction in
                try transaction.table("t").insert(Self.row(data.row((key - 1) % UInt64(data.count) + 1)), forKey: key)
            }
        }
    }

    func fileBytes() throws -> UInt64 {
        try database!.trimFile()
        return try PosixFile(path: path, create: false, readOnly: true).size()
    }

    func close() {
        database = nil
        removeFiles()
    }
}
