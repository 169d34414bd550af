import Testing
import TestSupport
@testable import StorageEngine

/// A transaction that changes more leaves than a tree keeps in memory writes them before its
/// commit (MutableTree+Spill): the commit, a crash in it and a rollback behave as without.
@Suite("Spilling a large transaction's dirty leaves")
struct SpillTests {
    static let rowCount: UInt64 = 3000

    static func row(_ key: UInt64, round: Int) -> [RowValue] {
        [.int(Int64(key)), .binary([UInt8](repeating: UInt8(truncatingIfNeeded: Int(key) &+ round), count: 60 + Int(key % 40)))]
    }

    /// A file holding table "t" with `rowCount` rows over a few dozen leaves.
    static func prepare() throws -> (FaultInjectingFile, Database) {
        let file = FaultInjectingFile()
        let database = try Database.open(file: file, cacheBytes: 1 << 20)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in 1...rowCount { try table.insert(row(key, round: 0), forKey: key) }
        }
        return (file, database)
    }

    /// Changes every row in a random order, deletes a tenth and adds some, keeping at most
    /// `limit` dirty leaves in memory; checks rows read back as it goes. Returns the rows the
    /// table should hold.
    static func changeEverything(in table: TableWriter, limit: Int, seed: UInt64) throws -> [UInt64: [RowValue]] {
        table.rowTree.maxLeavesInMemory = limit
        var random = SeededGenerator(seed: seed)
        var expected: [UInt64: [RowValue]] = [:]
        for key in 1...rowCount { expected[key] = row(key, round: 0) }
        for (step, key) in (1...rowCount).shuffled(using: &random).enumerated() {
            if step % 10 == 0 {
                _ = try table.delete(key)
                expected[key] = nil
            } else {
                expected[key] = row(key, round: 1)
                _ = try table.update(key, to: expected[key]!)
            }
            if step % 7 == 0 {
                let added = rowCount + UInt64(step) + 1
                expected[added] = row(added, round: 2)
                try table.insert(expected[added]!, forKey: added)
            }
            if step % 50 == 0, let probe = expected.keys.randomElement(using: &random) {
                #expect(try table.row(probe) == expected[probe], "row \(probe) read back mid-transaction")
            }
            let inMemory = table.rowTree.leaves.filter { $0.count > 0 }.count
            #expect(inMemory <= limit + 3, "\(inMemory) dirty leaves in memory")
        }
        return expected
    }

    @Test("a transaction changing every leaf keeps few in memory, reads its own changes back, and commits them all")
    func spilledCommit() throws {
        let (file, database) = try Self.prepare()
        let (expected, _) = try database.write { transaction in
            try Self.changeEverything(in: try transaction.table("t"), limit: 4, seed: testSeed())
        }
        #expect(try contents(of: "t", in: database.snapshot()) == expected)
        #expect(try spaceAccountingProblem(in: file) == nil)
        let reopened = try Database.open(file: InMemoryFile(contents: file.contents))
        #expect(try contents(of: "t", in: reopened.snapshot()) == expected)
    }

    @Test("a rolled-back transaction that spilled leaves the old version and its space as they were")
    func spilledRollback() throws {
        let (file, database) = try Self.prepare()
        let before = try contents(of: "t", in: database.snapshot())
        let transaction = try database.beginWrite()
        _ = try Self.changeEverything(in: try transaction.table("t"), limit: 4, seed: testSeed())
        transaction.rollback()
        #expect(try contents(of: "t", in: database.snapshot()) == before)
        try database.write { try $0.table("t").update(1, to: Self.row(1, round: 5)) }
        #expect(try database.snapshot().table("t").row(1) == Self.row(1, round: 5))
        #expect(try spaceAccountingProblem(in: file) == nil)
    }

    @Test("a crash at every write of a commit that spilled, dropping unsynced writes or tearing one, leaves the old or the new version")
    func crashWhileSpilling() throws {
        let (file, database) = try Self.prepare()
        let before = try contents(of: "t", in: database.snapshot())
        let base = file.contents
        file.clearLog()
        let (after, _) = try database.write { transaction in
            try Self.changeEverything(in: try transaction.table("t"), limit: 8, seed: testSeed())
        }
        let log = file.log
        var random = SeededGenerator(seed: testSeed())
        var outcomes: [String: Int] = [:]
        let writes = log.indices.filter { if case .write = log[$0] { true } else { false } }
        // The commit's own writes (the last ones) all, and a sample of the spills before them.
        let chosen = writes.enumerated().filter { $0.offset % 32 == 0 || $0.offset >= writes.count - 12 }.map(\.element)
        for index in chosen {
            guard case .write(_, let bytes) = log[index] else { continue }
            let cases: [FaultInjectingFile.CrashOutcome] = [
                .dropUnsynced, .tornWrite(prefix: Int.random(in: 0..<max(bytes.count, 1), using: &random)), .tornWrite(prefix: bytes.count),
            ]
            for outcome in cases {
                let image = FaultInjectingFile.crashImage(base: base, log: log, crashingAt: index, outcome: outcome)
                let seen = try contents(of: "t", in: Database.open(file: InMemoryFile(contents: image)).snapshot())
                #expect(seen == before || seen == after, "write \(index) of \(log.count), \(outcome)")
                outcomes[seen == before ? "old" : "new", default: 0] += 1
            }
        }
        #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes) over \(writes.count) writes, \(chosen.count) chosen")
    }
}
