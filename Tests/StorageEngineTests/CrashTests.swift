import Foundation
import Testing
@testable import StorageEngine

@Suite("Crash safety")
struct CrashTests {
    /// The CrashWriter executable, built next to the test bundle.
    static func crashWriterPath() throws -> String {
        let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        // On Linux the bundle is an executable inside `.build/<config>/`, perhaps one level down.
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("CrashWriter").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw StorageError(.fileNotFound, "CrashWriter was not built next to \(testBinary)")
    }

    @Test("a child SIGKILLed at random moments 50 times always leaves transactions 1...k with k at least the last acknowledged")
    func killedWriter() async throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let writer = try Self.crashWriterPath()
        let directory = TemporaryDirectory()
        let database = directory.file("crash.realm")
        let side = directory.file("acknowledged.txt")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        var lastCount = 0

        for round in 0..<50 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: writer)
            child.arguments = [database, side, String(random.next())]
            try child.run()
            // Let it get past start-up most of the time, and kill it during start-up sometimes.
            let delay = round % 10 == 0 ? UInt64.random(in: 0...5, using: &random) : UInt64.random(in: 20...90, using: &random)
            try await Task.sleep(nanoseconds: delay * 1_000_000)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the writer exited by itself (seed \(seed))")

            let acknowledged = (try String(contentsOfFile: side, encoding: .utf8))
                .split(separator: "\n").compactMap { UInt64($0) }.max() ?? 0
            let opened = try Database.open(path: database)
            let snapshot = try opened.snapshot()
            guard let log = snapshot.tableIfPresent("log") else {
                #expect(acknowledged == 0, "round \(round): acknowledged \(acknowledged) but the table is missing (seed \(seed))")
                continue
            }
            let keys = try log.keys()
            let count = UInt64(keys.count)
            #expect(keys == Array(1...max(count, 1)).prefix(keys.count).map { $0 }, "round \(round): transactions are not exactly 1...k (seed \(seed))")
            #expect(count >= acknowledged, "round \(round): \(count) transactions survive, \(acknowledged) were acknowledged (seed \(seed))")
            try log.scan { (key, row) throws in
                #expect(try row.column(0) == .int(Int64(key)))
                guard case .binary(let payload) = try row.column(1) else {
                    Issue.record("row \(key) lost its payload (seed \(seed))")
                    return false
                }
                #expect(payload.allSatisfy { $0 == UInt8(truncatingIfNeeded: key) })
                return true
            }
            #expect(keys.count >= lastCount)
            lastCount = keys.count
        }
        #expect(lastCount > 50, "the writer should have committed a good number of transactions")
    }
}
