import Testing
import TestSupport
@testable import StorageEngine

@Suite("Redo records")
struct RedoRecordTests {
    /// The observable state of table "t": rows, count, next key, and each indexed value's keys.
    /// `uniques` are looked up in the unique index, as are the five names in the other.
    static func state(of database: Database, uniques: [Int64]) throws -> String {
        let snapshot = try database.snapshot()
        let rows = try contents(of: "t", in: snapshot)
        guard let table = snapshot.tableIfPresent("t") else { return "no table" }
        var lookups: [String] = []
        for name in ["a", "b", "c", "d", "e"] {
            lookups.append("\(name): \(try table.firstKey(where: 1, equals: .string(name)).map(String.init) ?? "-")")
        }
        for number in uniques {
            lookups.append("\(number): \(try table.firstKey(where: 2, equals: .int(number)).map(String.init) ?? "-")")
        }
        let sorted = rows.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "\(table.count) rows, next \(table.nextKey)\n\(sorted.joined(separator: "\n"))\n\(lookups.joined(separator: ", "))"
    }

    @Test("replaying each transaction's record on a copy of its starting version gives the same rows, counts and index lookups")
    func replayMatches() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let original = try Database.open(file: InMemoryFile())
        let replica = try Database.open(file: InMemoryFile())
        for database in [original, replica] {
            try database.write { transaction in
                let table = transaction.createTable("t")
                try table.addIndex(on: 1, unique: false)
                try table.addIndex(on: 2, unique: true)
                #expect(transaction.redoRecord == nil, "creating a table and indexes is not recorded")
            }
        }
        var nextUnique: Int64 = 0
        for round in 0..<300 {
            let (record, _) = try original.write { transaction -> RedoRecord? in
                let table = try transaction.table("t")
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let keys = try table.keys()
                    let choice = keys.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
                    let name = RowValue.string(["a", "b", "c", "d", "e"].randomElement(using: &random)!)
                    nextUnique += 1
                    let row: [RowValue] = [.int(Int64(round)), name, .int(nextUnique), .double(Double(choice))]
                    switch choice {
                    case 0..<5:
                        try table.insert(row)
                    case 5..<7:
                        try table.update(keys.randomElement(using: &random)!, to: row)
                    case 7:
                        try table.set(keys.randomElement(using: &random)!, column: 3, to: .string("set in \(round)"))
                    case 8:
                        try table.delete(keys.randomElement(using: &random)!)
                    default:
                        if Int.random(in: 0..<20, using: &random) == 0 { try table.deleteAll() } else { try table.insert(row) }
                    }
                }
                return transaction.redoRecord
            }
            let recorded = try #require(record, "round \(round) (seed \(seed)) was not recorded")
            let decoded = try RedoRecord.decode(recorded.encoded())
            #expect(decoded == recorded)
            try replica.write { transaction in try decoded.apply(to: transaction) }
            // Every value the unique index ever held, so that stale entries would show too.
            let uniques = Array(Int64(1)...nextUnique)
            let expected = try Self.state(of: original, uniques: uniques)
            let replayed = try Self.state(of: replica, uniques: uniques)
            #expect(replayed == expected, "round \(round) (seed \(seed))")
            if replayed != expected { return }
        }
    }

    @Test("a transaction that creates or drops a table or an index, or changes too many bytes, has no record")
    func notRecorded() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in _ = transaction.createTable("t") }
        try database.write { transaction in
            try transaction.table("t").insert([.int(1)])
            #expect(transaction.redoRecord?.operations.count == 1)
            try transaction.table("t").addIndex(on: 0, unique: false)
            #expect(transaction.redoRecord == nil)
            try transaction.table("t").insert([.int(2)])
            #expect(transaction.redoRecord == nil, "once given up, a transaction stays unrecorded")
        }
        try database.write { transaction in
            try transaction.dropTable("t")
            #expect(transaction.redoRecord == nil)
        }
        try database.write { transaction in
            let table = transaction.createTable("big")
            _ = table
        }
        try database.write { transaction in
            let table = try transaction.table("big")
            let text = RowValue.string(String(repeating: "x", count: 1000))
            var recorded = 0
            while transaction.redoRecord != nil {
                try table.insert([text])
                recorded += 1
            }
            #expect(recorded > 10 && recorded <= RedoRecorder.byteBudget / 1000 + 1)
        }
    }

    @Test("a record that does not add up is refused, not half applied")
    func damagedRecord() throws {
        let record = RedoRecord(operations: [.insert(table: "t", key: 1, row: RowCodec.encode([.int(5)])), .delete(table: "t", key: 1)])
        let bytes = record.encoded()
        #expect(throws: StorageError.self) { try RedoRecord.decode(Array(bytes.dropLast())) }
        var unknownTable = bytes
        unknownTable[3 + 1] = 9  // the first operation's table number
        #expect(throws: StorageError.self) { try RedoRecord.decode(unknownTable) }
    }
}
