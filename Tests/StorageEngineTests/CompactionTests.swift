import Foundation
import Glibc
import Testing
import TestSupport
@testable import StorageEngine

@Suite("Compaction in place")
struct CompactionTests {
    /// A file of `rows` rows of which most were deleted again, closed: much free space.
    static func makeSparseFile(_ path: String, rows: UInt64 = 20_000, key: EncryptionKey? = nil) throws -> [UInt64: [RowValue]] {
        let database = try Database.open(path: path, encryptionKey: key)
        try database.write { transaction in
            let table = transaction.createTable("t")
            try table.addIndex(on: 1, unique: true)
            for row in 1...rows { try table.insert([.binary([UInt8](repeating: UInt8(truncatingIfNeeded: row), count: 180)), .int(Int64(row))], forKey: row) }
        }
        try database.write { transaction in
            let table = try transaction.table("t")
            for row in 1...rows where row % 10 != 0 { try table.delete(row) }
        }
        return try contents(of: "t", in: try database.snapshot())
    }

    static func size(_ path: String) throws -> UInt64 {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).uint64Value
    }

    @Test("a file mostly free is rewritten with its live rows only: same rows, keys, indexes; much smaller", arguments: [false, true])
    func compacts(encrypted: Bool) throws {
        let key = testKey(encrypted: encrypted)
        let directory = TemporaryDirectory()
        let path = directory.filePath("c.realm")
        let expected = try Self.makeSparseFile(path, key: key)
        let before = try Self.size(path)
        var asked: (UInt64, UInt64)?
        #expect(try Database.compactOnFirstOpen(atPath: path, encryptionKey: key) { total, used in
            asked = (total, used)
            return true
        })
        let (total, used) = try #require(asked)
        #expect(total == before)
        #expect(used < total / 3, "used \(used) of \(total)")
        let after = try Self.size(path)
        #expect(after < before / 3, "compacted to \(after) bytes from \(before)")
        let database = try Database.open(path: path, encryptionKey: key)
        #expect(try contents(of: "t", in: try database.snapshot()) == expected)
        #expect(try database.snapshot().roots(ofTable: "t")?.nextKey == 20_001)
        #expect(throws: StorageError.self) {
            try database.write { try $0.table("t").insert([.binary([]), .int(10)], forKey: 50_000) }
        }
        #expect(try spaceAccountingProblem(in: PosixFile(path: path, create: false, readOnly: true), key: key) == nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("compacting") }
        #expect(left.isEmpty, "\(left)")
        if encrypted {
            #expect { _ = try Database.open(path: path) } throws: { ($0 as? StorageError)?.code == .invalidEncryptionKey }
        }
    }

    @Test("declined, open in this process, or open in another: the file is left byte for byte and the decision not asked twice")
    func leftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("c.realm")
        _ = try Self.makeSparseFile(path)
        let image = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try !Database.compactOnFirstOpen(atPath: path) { _, _ in false })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == image)
        do {
            let open = try Database.open(path: path)
            var asked = false
            #expect(try !Database.compactOnFirstOpen(atPath: path) { _, _ in asked = true; return true })
            #expect(!asked)
            withExtendedLifetime(open) {}
        }
        // Another process's open lock (an open file description of its own stands for one).
        let descriptor = try FileLocks.openLockFile(path + ".lock")
        defer { Glibc.close(descriptor) }
        #expect(try FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, shared: true, wait: false))
        var asked = false
        #expect(try !Database.compactOnFirstOpen(atPath: path) { _, _ in asked = true; return true })
        #expect(!asked)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == image.count)
        #expect(try !Database.compactOnFirstOpen(atPath: directory.filePath("missing.realm")) { _, _ in true })
    }

    @Test("a child compacting over and over, SIGKILLed at random moments 20 times, always leaves a file with every row", arguments: [false, true])
    func killedCompaction(encrypted: Bool) async throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let key = testKey(encrypted: encrypted)
        let directory = TemporaryDirectory()
        let path = directory.filePath("c.realm")
        let expected = try Self.makeSparseFile(path, rows: 60_000, key: key)
        var replaced = 0
        for round in 0..<20 {
            let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
            let child = try CrashTests.run(["compact-loop", path], encrypted: encrypted)
            try await Task.sleep(nanoseconds: UInt64.random(in: 20...400, using: &random) * 1_000_000)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child ended by itself (seed \(seed))")
            if try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int != before { replaced += 1 }
            let reopened = try Database.open(path: path, encryptionKey: key)
            #expect(try contents(of: "t", in: try reopened.snapshot()) == expected, "round \(round) (seed \(seed))")
        }
        #expect(replaced > 0, "no compaction finished in 20 rounds: the kills did not fall among compactions")
    }
}
