import Testing
import TestSupport
@testable import StorageEngine

@Suite("Lost and torn writes, failing I/O")
struct FaultInjectionTests {
    /// A database with a few versions of history, and the change one more commit makes.
    static func prepare(seed: UInt64, key: EncryptionKey? = nil) throws -> (FaultInjectingFile, Database, [UInt64: [RowValue]]) {
        var random = SeededGenerator(seed: seed)
        let file = FaultInjectingFile()
        let database = try Database.open(file: file, cacheBytes: 1 << 20, encryptionKey: key)
        for round in 0..<5 {
            try database.write { transaction in
                let table = transaction.createTable("t")
                if round == 0 { try table.addIndex(on: 1, unique: true) }
                for _ in 0..<400 {
                    let key = UInt64.random(in: 1...1500, using: &random)
                    let size = Int.random(in: 0..<20, using: &random) == 0 ? 6000 : Int.random(in: 0...80, using: &random)
                    let row: [RowValue] = [.binary([UInt8](repeating: UInt8(truncatingIfNeeded: key &+ UInt64(round)), count: size)), .int(Int64(key))]
                    if try table.contains(key) { try table.update(key, to: row) } else { try table.insert(row, forKey: key) }
                }
                for _ in 0..<100 { try table.delete(UInt64.random(in: 1...1500, using: &random)) }
            }
        }
        return (file, database, try contents(of: "t", in: try database.snapshot()))
    }

    static func commitChange(_ database: Database) throws {
        try database.write { transaction in
            let table = try transaction.table("t")
            for key in stride(from: UInt64(1), through: 1500, by: 7) {
                if try table.contains(key) { try table.delete(key) } else {
                    try table.insert([.binary([UInt8](repeating: 9, count: key % 50 == 0 ? 7000 : 30)), .int(Int64(key))], forKey: key)
                }
            }
        }
    }

    @Test("a crash at every write of a commit, dropping unsynced writes or tearing the write, leaves the old or the new version",
          arguments: [false, true])
    func crashAtEveryWrite(encrypted: Bool) throws {
        let seed = testSeed()
        let key = testKey(encrypted: encrypted)
        let (file, database, before) = try Self.prepare(seed: seed, key: key)
        let base = file.contents
        file.clearLog()
        try Self.commitChange(database)
        let after = try contents(of: "t", in: try database.snapshot())
        #expect(after != before)
        let log = file.log
        var random = SeededGenerator(seed: seed)
        var outcomes: [String: Int] = [:]

        for (index, operation) in log.enumerated() {
            guard case .write(_, let bytes) = operation else { continue }
            let cases: [FaultInjectingFile.CrashOutcome] = [
                .dropUnsynced,
                .tornWrite(prefix: Int.random(in: 0..<max(bytes.count, 1), using: &random)),
                .tornWriteOnly(prefix: Int.random(in: 0..<max(bytes.count, 1), using: &random)),
                .tornWrite(prefix: bytes.count),
            ]
            for outcome in cases {
                let image = FaultInjectingFile.crashImage(base: base, log: log, crashingAt: index, outcome: outcome)
                let recovered = try Database.open(file: InMemoryFile(contents: image), encryptionKey: key)
                let seen = try contents(of: "t", in: try recovered.snapshot())
                #expect(seen == before || seen == after, "write \(index) of \(log.count), \(outcome): neither version (seed \(seed))")
                outcomes[seen == before ? "old" : "new", default: 0] += 1
                // The recovered file must take new commits.
                if index % 5 == 0 {
                    try Self.commitChange(recovered)
                    #expect(try recovered.snapshot().table("t").count > 0)
                }
            }
        }
        #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "crash points should cover both outcomes: \(outcomes)")
    }

    @Test("a crash before the sync that loses any one write of the commit, header kept or not, leaves the old or the new version",
          arguments: [false, true])
    func reorderedWrites(encrypted: Bool) throws {
        let seed = testSeed()
        let key = testKey(encrypted: encrypted)
        for commitSize in [1, 300] {
            let (file, database, before) = try Self.prepare(seed: seed, key: key)
            let base = file.contents
            file.clearLog()
            try database.write { transaction in
                let table = try transaction.table("t")
                for key in 1...UInt64(commitSize) {
                    try table.insert([.binary([UInt8](repeating: 3, count: 40)), .int(Int64(10_000 + key))], forKey: 5000 + key)
                }
            }
            let after = try contents(of: "t", in: try database.snapshot())
            let log = file.log
            var sawOld = false
            for (index, operation) in log.enumerated() {
                guard case .write = operation else { continue }
                let image = FaultInjectingFile.crashImage(base: base, log: log, losingWriteAt: index)
                let seen = try contents(of: "t", in: try Database.open(file: InMemoryFile(contents: image), encryptionKey: key).snapshot())
                #expect(seen == before || seen == after, "losing write \(index) of \(log.count): neither version (seed \(seed))")
                sawOld = sawOld || seen == before
            }
            #expect(sawOld, "losing a page of the commit must fall back to the old version")
        }
    }

    @Test("a commit that meets ENOSPC or EIO throws and leaves the data as it was; one that returns is durable",
          arguments: [StorageError.Code.diskFull, .ioError], [false, true])
    func failingWrites(code: StorageError.Code, encrypted: Bool) throws {
        let key = testKey(encrypted: encrypted)
        let (file, database, _) = try Self.prepare(seed: 7, key: key)
        var failures = 0
        for failAfter in 0..<8 {
            let before = try contents(of: "t", in: try database.snapshot())
            file.failWrites(after: failAfter, with: StorageError(code, "injected"))
            var expected = before
            do {
                try Self.commitChange(database)
                expected = try contents(of: "t", in: try database.snapshot())
                #expect(expected != before)
            } catch let error as StorageError {
                #expect(error.code == code)
                failures += 1
            }
            file.stopFailing()
            #expect(try contents(of: "t", in: try database.snapshot()) == expected, "after \(failAfter) writes")
            let reopened = try Database.open(file: InMemoryFile(contents: file.contents), encryptionKey: key)
            #expect(try contents(of: "t", in: try reopened.snapshot()) == expected, "after \(failAfter) writes, reopened")
        }
        #expect(failures >= 3)

        let before = try contents(of: "t", in: try database.snapshot())
        file.failSyncs(with: StorageError(code, "injected"))
        #expect(throws: StorageError.self) { try Self.commitChange(database) }
        file.stopFailing()
        #expect(try contents(of: "t", in: try database.snapshot()) == before)
        #expect(try contents(of: "t", in: try Database.open(file: InMemoryFile(contents: file.contents), encryptionKey: key).snapshot()) == before)
        try Self.commitChange(database)
        #expect(try contents(of: "t", in: try database.snapshot()) != before)
    }
}
