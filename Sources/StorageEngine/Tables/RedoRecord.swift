/// The row changes of one transaction, as the redo log stores them (see `Docs/Internals/RedoLog.md`):
/// enough to make the same changes again on the version the transaction started from.
///
/// Only row operations are recorded; replaying them through `TableWriter` redoes the index
/// changes they made, so those are not recorded. A transaction that does anything else
/// (creates or drops a table or an index) or changes too many bytes has no record
/// (`RedoRecorder.isLoggable` false): it must be committed to the database file as before.
///
/// Encoding: a varint count of table names and the names (varint length, UTF-8), then each
/// operation as a kind byte, the table's number, and its fields (varint key, varint length and
/// row bytes).
package struct RedoRecord: Equatable, Sendable {
    package enum Operation: Equatable, Sendable {
        case insert(table: String, key: UInt64, row: [UInt8])
        case update(table: String, key: UInt64, row: [UInt8])
        case delete(table: String, key: UInt64)
        case deleteAll(table: String)

        var table: String {
            switch self {
            case .insert(let table, _, _), .update(let table, _, _), .delete(let table, _), .deleteAll(let table): table
            }
        }
    }

    package var operations: [Operation]

    package init(operations: [Operation]) {
        self.operations = operations
    }

    private enum Kind: UInt8 {
        case insert = 1, update, delete, deleteAll
    }

    package func encoded() -> [UInt8] {
        var names: [String] = []
        var numbers: [String: Int] = [:]
        for operation in operations where numbers[operation.table] == nil {
            numbers[operation.table] = names.count
            names.append(operation.table)
        }
        var writer = ByteWriter(capacity: 16 + operations.count * 16)
        writer.appendVarint(UInt64(names.count))
        for name in names {
            writer.appendVarint(UInt64(name.utf8.count))
            writer.append(contentsOf: name.utf8)
        }
        for operation in operations {
            let number = UInt64(numbers[operation.table]!)
            switch operation {
            case .insert(_, let key, let row), .update(_, let key, let row):
                if case .insert = operation { writer.append(Kind.insert.rawValue) } else { writer.append(Kind.update.rawValue) }
                writer.appendVarint(number)
                writer.appendVarint(key)
                writer.appendVarint(UInt64(row.count))
                writer.append(contentsOf: row)
            case .delete(_, let key):
                writer.append(Kind.delete.rawValue)
                writer.appendVarint(number)
                writer.appendVarint(key)
            case .deleteAll:
                writer.append(Kind.deleteAll.rawValue)
                writer.appendVarint(number)
            }
        }
        return writer.bytes
    }

    /// Decodes `bytes`; a record that does not add up throws `fileCorrupted`.
    package static func decode(_ bytes: [UInt8]) throws -> RedoRecord {
        try bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, origin: 0)
            let nameCount = try reader.readLength(limit: buffer.count)
            var names: [String] = []
            for _ in 0..<nameCount {
                let length = try reader.readLength(limit: reader.remaining)
                names.append(String(decoding: try reader.readBytes(length), as: UTF8.self))
            }
            func table() throws -> String {
                let number = try reader.readVarint()
                guard number < UInt64(names.count) else { throw reader.corrupted("redo record names table \(number) of \(names.count)") }
                return names[Int(number)]
            }
            var operations: [Operation] = []
            while !reader.isAtEnd {
                guard let kind = Kind(rawValue: try reader.readByte()) else { throw reader.corrupted("redo record has an unknown operation") }
                switch kind {
                case .insert, .update:
                    let name = try table()
                    let key = try reader.readVarint()
                    let row = Array(try reader.readBytes(try reader.readLength(limit: reader.remaining)))
                    operations.append(kind == .insert ? .insert(table: name, key: key, row: row) : .update(table: name, key: key, row: row))
                case .delete:
                    operations.append(.delete(table: try table(), key: try reader.readVarint()))
                case .deleteAll:
                    operations.append(.deleteAll(table: try table()))
                }
            }
            return RedoRecord(operations: operations)
        }
    }

    /// Makes the record's changes in the tables `table` gives by name (those of a write
    /// transaction, which must start from the version the recorded transaction started from).
    ///
    /// - Throws: what the table operations throw (a replay that fails does not match the
    ///   version it was applied to), and `fileCorrupted` for a row that does not decode.
    package func apply(toTables table: (String) throws -> TableWriter) throws {
        for operation in operations {
            let table = try table(operation.table)
            switch operation {
            case .insert(_, let key, let row):
                try table.insert(try row.withUnsafeBytes { try RowCodec.decode($0) }, forKey: key)
            case .update(_, let key, let row):
                guard try table.update(key, to: try row.withUnsafeBytes { try RowCodec.decode($0) }) else {
                    throw StorageError(.fileCorrupted, "redo record updates row \(key) of '\(operation.table)', which does not exist")
                }
            case .delete(_, let key):
                guard try table.delete(key) else {
                    throw StorageError(.fileCorrupted, "redo record deletes row \(key) of '\(operation.table)', which does not exist")
                }
            case .deleteAll:
                try table.deleteAll()
            }
        }
    }
}

/// Collects a transaction's row operations for its `RedoRecord`, until the transaction does
/// something a record cannot hold.
package final class RedoRecorder {
    /// Row bytes past which a transaction is no longer recorded: a large transaction is
    /// committed to the database file, where it costs no more than its log record would.
    static let byteBudget = 64 << 10

    // Exclusivity is unchecked: a recorder belongs to one transaction on one thread, and every
    // row a transaction inserts passes here.
    @exclusivity(unchecked) package private(set) var operations: [RedoRecord.Operation] = []
    @exclusivity(unchecked) private(set) var isLoggable = true
    @exclusivity(unchecked) private var bytes = 0

    /// Records `operation`, or stops recording if it would pass the budget.
    func record(_ operation: @autoclosure () -> RedoRecord.Operation, rowBytes: Int) {
        guard isLoggable else { return }
        bytes += rowBytes + 16
        guard bytes <= RedoRecorder.byteBudget else { return stop() }
        operations.append(operation())
    }

    /// Gives up recording: the transaction did something a record cannot hold.
    func stop() {
        isLoggable = false
        operations = []
    }

    /// The record of what was done, or nil if the transaction cannot be recorded.
    package var record: RedoRecord? { isLoggable ? RedoRecord(operations: operations) : nil }
}
