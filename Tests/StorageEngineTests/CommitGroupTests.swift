import Testing
import TestSupport
@testable import StorageEngine

/// Commits made durable together (`CommitGroup`): invisible until the group's one header write
/// and sync, then all at once; a crash or a failed sync anywhere leaves the version before the
/// group or its last one, never one in between.
@Suite("Commit groups")
struct CommitGroupTests {
    /// What the group's writers were told, in order.
    final class Outcomes: Sendable {
        let reports = Locked<[String]>([])
        func record(_ error: (any Error)?) { reports.withLock { $0.append(error == nil ? "durable" : "lost") } }
        var all: [String] { reports.withLock { $0 } }
    }

    /// Commits `change` into the process's commit group: the first writer takes the lock
    /// itself, the others join. Returns the version committed.
    @discardableResult
    static func commitGrouped(_ database: Database, joining: Bool, outcomes: Outcomes, _ change: (WriteTransaction) throws -> Void) throws -> UInt64 {
        let transaction = joining ? try #require(try database.tryBeginWrite(joiningGroup: true)) : try database.beginWrite()
        try change(transaction)
        return try transaction.commitAndSnapshot(whenDurable: outcomes.record).0.version
    }

    /// A commit that rewrites much of `t`: inserts, deletes, index changes, overflow values.
    static func change(round: UInt64) -> (WriteTransaction) throws -> Void {
        { transaction in
            let table = try transaction.table("t")
            for key in stride(from: round % 7 + 1, through: 1500, by: 7) {
                if try table.contains(key) { try table.delete(key) } else {
                    try table.insert([.binary([UInt8](repeating: UInt8(round), count: key % 50 == 0 ? 7000 : 30)), .int(Int64(1_000_000 * round + key))], forKey: key)
                }
            }
        }
    }

    @Test("a group's commits are seen by its writers at once and by everyone else only when the group is durable")
    func visibility() throws {
        let (file, database, before) = try FaultInjectionTests.prepare(seed: 3)
        let durable = try database.snapshot().version
        let outcomes = Outcomes()
        let first = try Self.commitGrouped(database, joining: false, outcomes: outcomes, Self.change(round: 1))
        #expect(try database.snapshot().version == durable, "readers keep the durable version")
        #expect(try contents(of: "t", in: try database.snapshot()) == before)
        let second = try #require(try database.tryBeginWrite(joiningGroup: true))
        #expect(second.base.version == first, "the next writer of the group starts from its newest version")
        try Self.change(round: 2)(second)
        let last = try second.commitAndSnapshot(whenDurable: outcomes.record).0.version
        #expect(outcomes.all.isEmpty)
        let reopened = try Database.open(file: InMemoryFile(contents: file.contents))
        #expect(try reopened.snapshot().version == durable, "without its header the group is not in the file")

        #expect(try database.commitOpenGroup())
        #expect(outcomes.all == ["durable", "durable"])
        #expect(try database.snapshot().version == last)
        let after = try contents(of: "t", in: try database.snapshot())
        #expect(after != before)
        #expect(try contents(of: "t", in: try Database.open(file: InMemoryFile(contents: file.contents)).snapshot()) == after)
    }

    /// Runs a group of `count` commits on a prepared file and returns the file's log, the image
    /// before, and the contents before and after.
    static func groupOfCommits(_ count: Int, seed: UInt64) throws -> (log: [FaultInjectingFile.Operation], base: [UInt8], before: [UInt64: [RowValue]], after: [UInt64: [RowValue]], intermediate: [[UInt64: [RowValue]]]) {
        let (file, database, before) = try FaultInjectionTests.prepare(seed: seed)
        let base = file.contents
        file.clearLog()
        let outcomes = Outcomes()
        var intermediate: [[UInt64: [RowValue]]] = []
        for round in 0..<count {
            let transaction = round == 0 ? try database.beginWrite() : try #require(try database.tryBeginWrite(joiningGroup: true))
            try Self.change(round: UInt64(round + 1))(transaction)
            let (_, snapshot) = try transaction.commitAndSnapshot(whenDurable: outcomes.record)
            intermediate.append(try contents(of: "t", in: snapshot))
        }
        #expect(try database.commitOpenGroup())
        #expect(outcomes.all == Array(repeating: "durable", count: count))
        let after = try contents(of: "t", in: try database.snapshot())
        #expect(after == intermediate.last)
        return (file.log, base, before, after, intermediate.dropLast())
    }

    @Test("a crash at any write of a group, dropping unsynced writes or tearing one, leaves the version before the group or its last")
    func crashAtEveryWrite() throws {
        let seed = testSeed()
        let (log, base, before, after, intermediate) = try Self.groupOfCommits(4, seed: seed)
        #expect(log.filter { if case .sync = $0 { true } else { false } }.count == 1, "a group syncs once")
        var random = SeededGenerator(seed: seed)
        var outcomes: [String: Int] = [:]
        for (index, operation) in log.enumerated() {
            guard case .write(_, let bytes) = operation else { continue }
            for outcome: FaultInjectingFile.CrashOutcome in [
                .dropUnsynced, .tornWrite(prefix: Int.random(in: 0..<max(bytes.count, 1), using: &random)), .tornWrite(prefix: bytes.count),
            ] {
                let image = FaultInjectingFile.crashImage(base: base, log: log, crashingAt: index, outcome: outcome)
                let seen = try contents(of: "t", in: try Database.open(file: InMemoryFile(contents: image)).snapshot())
                #expect(seen == before || seen == after, "write \(index) of \(log.count), \(outcome): neither the version before the group nor its last (seed \(seed))")
                #expect(!intermediate.contains(seen))
                outcomes[seen == before ? "before" : "after", default: 0] += 1
            }
        }
        #expect(outcomes["before", default: 0] > 0 && outcomes["after", default: 0] > 0, "\(outcomes)")
    }

    @Test("losing any one write of a group before its sync, header kept or not, leaves the version before the group or its last")
    func reorderedWrites() throws {
        let seed = testSeed()
        let (log, base, before, after, _) = try Self.groupOfCommits(3, seed: seed)
        var sawBefore = false
        for (index, operation) in log.enumerated() {
            guard case .write = operation else { continue }
            let image = FaultInjectingFile.crashImage(base: base, log: log, losingWriteAt: index)
            let recovered = try Database.open(file: InMemoryFile(contents: image))
            let seen = try contents(of: "t", in: try recovered.snapshot())
            #expect(seen == before || seen == after, "losing write \(index) of \(log.count): neither version (seed \(seed))")
            sawBefore = sawBefore || seen == before
            if index % 7 == 0 { try FaultInjectionTests.commitChange(recovered) }
        }
        #expect(sawBefore, "losing a page of any commit of the group must fall back to the version before it")
    }

    @Test("a group whose sync fails tells every writer and leaves the file and the database at the version before it")
    func failedSync() throws {
        let (file, database, before) = try FaultInjectionTests.prepare(seed: 5)
        let outcomes = Outcomes()
        try Self.commitGrouped(database, joining: false, outcomes: outcomes, Self.change(round: 1))
        try Self.commitGrouped(database, joining: true, outcomes: outcomes, Self.change(round: 2))
        file.failSyncs(with: StorageError(.ioError, "injected"))
        #expect(throws: StorageError.self) { try database.commitOpenGroup() }
        file.stopFailing()
        #expect(outcomes.all == ["lost", "lost"])
        #expect(try contents(of: "t", in: try database.snapshot()) == before)
        #expect(try contents(of: "t", in: try Database.open(file: InMemoryFile(contents: file.contents)).snapshot()) == before)
        try FaultInjectionTests.commitChange(database)
        #expect(try contents(of: "t", in: try database.snapshot()) != before)
    }

    @Test("a writer outside the group makes an idle group durable before it starts, even on the handle that holds the group's lock")
    func outsiderEndsTheGroup() throws {
        let (_, database, _) = try FaultInjectionTests.prepare(seed: 9)
        let outcomes = Outcomes()
        let version = try Self.commitGrouped(database, joining: false, outcomes: outcomes, Self.change(round: 1))
        let transaction = try database.beginWrite()
        #expect(outcomes.all == ["durable"])
        #expect(transaction.base.version == version)
        #expect(!database.shared.hasOpenGroup)
        try Self.change(round: 2)(transaction)
        try transaction.commit()
        #expect(try database.snapshot().version == version + 1)
    }

    @Test("a group ends by itself at its size limit, and a large commit ends it with its own sync")
    func groupLimits() throws {
        let (_, database, _) = try FaultInjectionTests.prepare(seed: 11)
        let outcomes = Outcomes()
        try Self.commitGrouped(database, joining: false, outcomes: outcomes) { try $0.table("t").insert([.binary([]), .int(9_100_000)], forKey: 100_000) }
        for index in 1..<CommitGroup.maximumCommits {
            try Self.commitGrouped(database, joining: true, outcomes: outcomes) { try $0.table("t").insert([.binary([]), .int(9_100_000 + Int64(index))], forKey: 100_000 + UInt64(index)) }
        }
        #expect(outcomes.all.count == CommitGroup.maximumCommits, "the commit that fills the group makes it durable")
        #expect(!database.shared.hasOpenGroup)

        try Self.commitGrouped(database, joining: false, outcomes: outcomes) { try $0.table("t").insert([.binary([]), .int(9_200_000)], forKey: 200_000) }
        // Incompressible overflow values, more than `syncedPagesThreshold` of them.
        var random = SeededGenerator(seed: 11)
        let noise = (0..<8000).map { _ in UInt8.random(in: 0...255, using: &random) }
        try Self.commitGrouped(database, joining: true, outcomes: outcomes) { transaction in
            for key in 0..<UInt64(WriteTransaction.syncedPagesThreshold / 8000 + 50) {
                try transaction.table("t").insert([.binary(noise), .int(9_300_000 + Int64(key))], forKey: 300_000 + key)
            }
        }
        #expect(outcomes.all.count == CommitGroup.maximumCommits + 2)
        #expect(!database.shared.hasOpenGroup)
    }
}
