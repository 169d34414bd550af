import Foundation
import Testing
import TestSupport
@testable import StorageEngine

@Suite("Writing a copy of a database")
struct DatabaseCopyTests {
    /// Two writers of copies to one new path at the same moment (two launches seeding one
    /// file, two handles writing a backup): one copy lands whole and the other writer is told
    /// the file exists. Each used to build in the same `.copying` file, the second removing the
    /// first's while it was written, and one could link the other's half-built file.
    @Test("copies written to one path at once: one lands whole, the other gets fileExists, nothing is left beside it")
    func concurrentCopiesToOnePath() async throws {
        let directory = TemporaryDirectory()
        let source = try Database.open(path: directory.filePath("source.realm"))
        try source.write { transaction in
            let table = transaction.createTable("t")
            for row in 1...3000 as ClosedRange<UInt64> {
                try table.insert([.int(Int64(row)), .string(String(repeating: "r", count: Int(row % 50)))], forKey: row)
            }
        }
        let expected = try contents(of: "t", in: try source.snapshot())
        for round in 0..<12 {
            let path = directory.filePath("copy-\(round).realm")
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            try Database.writeCopy(of: Database.tablesToCopy(from: source.snapshot()), toPath: path)
                            return true
                        } catch let error as StorageError where error.code == .fileExists {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1, "round \(round): \(outcomes)")
            let copy = try Database.open(path: path, create: false, readOnly: true)
            #expect(try contents(of: "t", in: try copy.snapshot()) == expected, "round \(round)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("copying") || $0.contains("copylock") }
        #expect(left.isEmpty, "files left: \(left)")
    }
}
