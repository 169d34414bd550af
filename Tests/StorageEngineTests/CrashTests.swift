import Foundation
import Testing
@testable import StorageEngine
import TestSupport

@Suite("Crash safety")
struct CrashTests {
    /// The CrashWriter executable, built next to the test bundle.
    static func crashWriterPath() throws -> String { try childExecutablePath("CrashWriter") }

    @Test("a child SIGKILLed at random moments 50 times always leaves transactions 1...k with k at least the last acknowledged",
          arguments: [false, true])
    func killedWriter(encrypted: Bool) async throws {
        let seed = testSeed()
        let key = testKey(encrypted: encrypted)
        var random = SeededGenerator(seed: seed)
        let writer = try Self.crashWriterPath()
        let directory = TemporaryDirectory()
        let database = directory.filePath("crash.realm")
        let side = directory.filePath("acknowledged.txt")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        var lastCount = 0

        for round in 0..<50 {
            let child = Self.process(writer, ["append", database, side, String(random.next())], encrypted: encrypted)
            try child.run()
            // Let it get past start-up most of the time, and kill it during start-up sometimes.
            let delay = round % 10 == 0 ? UInt64.random(in: 0...5, using: &random) : UInt64.random(in: 20...90, using: &random)
            try await Task.sleep(nanoseconds: delay * 1_000_000)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the writer exited by itself (seed \(seed))")

            let acknowledged = (try String(contentsOfFile: side, encoding: .utf8))
                .split(separator: "\n").compactMap { UInt64($0) }.max() ?? 0
            let opened = try Database.open(path: database, encryptionKey: key)
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

    static func run(_ arguments: [String], encrypted: Bool = false) throws -> Process {
        let child = process(try crashWriterPath(), arguments, encrypted: encrypted)
        try child.run()
        return child
    }

    /// The child `executable` with `arguments`, told to open its files with the test key if
    /// `encrypted`.
    static func process(_ executable: String, _ arguments: [String], encrypted: Bool) -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        if encrypted {
            child.environment = ProcessInfo.processInfo.environment.merging([encryptedChildEnvironment: "1"]) { $1 }
        }
        return child
    }

    @Test("two processes writing at once are serialised by the write lock", arguments: [false, true])
    func twoProcessWriters(encrypted: Bool) async throws {
        let directory = TemporaryDirectory()
        let database = directory.filePath("shared.realm")
        let side = directory.filePath("acknowledged.txt")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        let writers = try (1...2).map { try Self.run(["append", database, side, String($0)], encrypted: encrypted) }
        try await Task.sleep(nanoseconds: 600_000_000)
        for writer in writers {
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
        }
        let acknowledged = (try String(contentsOfFile: side, encoding: .utf8)).split(separator: "\n").compactMap { UInt64($0) }
        let log = try Database.open(path: database, encryptionKey: testKey(encrypted: encrypted)).snapshot().table("log")
        let keys = try log.keys()
        // Each transaction took count + 1 as its key: with both writers inside at once, two
        // would take the same key and one insert would fail (ending its process early).
        #expect(keys == Array(1...UInt64(max(keys.count, 1))).prefix(keys.count).map { $0 })
        #expect(Set(acknowledged).count == acknowledged.count, "no number was acknowledged twice")
        #expect(Set(acknowledged).isSubset(of: Set(keys)))
        #expect(keys.count >= 20)
    }

    @Test("a snapshot pinned in this process stays intact while another process rewrites the rows 200 times")
    func pinAcrossProcesses() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("pinned.realm")
        // No page cache, so the snapshot reads what is on disk now, not what it decoded earlier.
        let database = try Database.open(path: path, cacheBytes: 0)
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in UInt64(1)...300 { try table.insert([.int(0), .binary([UInt8](repeating: 7, count: 64))], forKey: key) }
        }
        let pinned = try database.snapshot()
        let before = try contents(of: "t", in: pinned)
        let writer = try Self.run(["rewrite", path, "200"])
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(try contents(of: "t", in: pinned) == before, "the other process reused space this snapshot reads")
        let newest = try database.snapshot()
        #expect(newest.version == pinned.version + 200)
        #expect(try newest.table("t").value(1, column: 0) == .int(200))
    }
}

/// A process that keeps commits in its redo log holds the file to itself; stopped, it cannot
/// share it. Opening then waits at most the open timeout and throws (issue 26, item 15).
@Suite("Opening beside a stopped process")
struct StoppedProcessTests {
    @Test("opening a file a stopped writer keeps to itself throws timedOut after the timeout, and opens once it runs")
    func stoppedWriter() async throws {
        let directory = TemporaryDirectory()
        let database = directory.filePath("stopped.realm")
        let side = directory.filePath("acknowledged.txt")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        let child = try CrashTests.run(["hold", database, side])
        defer {
            kill(child.processIdentifier, SIGCONT)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        // Its first commits are acknowledged: it logs, and holds the file to itself.
        let clock = ContinuousClock()
        func acknowledged() -> Int { ((try? String(contentsOfFile: side, encoding: .utf8)) ?? "").split(separator: "\n").count }
        func waitUntilAcknowledged(moreThan count: Int) async throws {
            let started = clock.now
            while acknowledged() <= count {
                try #require(clock.now - started < .seconds(60), "the writer committed nothing")
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        try await waitUntilAcknowledged(moreThan: 2)
        // Stopped while it holds the file to itself (it holds it from its first commit on, but
        // a busy machine may catch it before: let it run and try again).
        let lockFile = try FileLocks.openLockFile(database + ".lock")
        defer { close(lockFile) }
        var stoppedHolding = false
        for _ in 0..<500 where !stoppedHolding {
            kill(child.processIdentifier, SIGSTOP)
            // The signal is delivered asynchronously: until the process has stopped, it may
            // still let go of the file after the probe below saw it held.
            try await Self.waitUntilStopped(child.processIdentifier)
            if Self.isHeldExclusively(lockFile, byte: 1) {
                stoppedHolding = true
            } else {
                // Let it commit again before the next try. Stopped for a second or more (a
                // busy machine wakes this task late), it finds itself idle when it runs again,
                // checkpoints and shares the file until its next commit: stopped again before
                // that commit, it would never be caught holding the file.
                let count = acknowledged()
                kill(child.processIdentifier, SIGCONT)
                try await waitUntilAcknowledged(moreThan: count)
            }
        }
        try #require(stoppedHolding, "the writer was never caught holding the file to itself")
        let before = clock.now
        let error = #expect(throws: StorageError.self) { _ = try Database.open(path: database, openTimeout: .milliseconds(300)) }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(clock.now - before >= .milliseconds(300))
        kill(child.processIdentifier, SIGCONT)
        // Running, it shares the file when asked.
        let reopened = try Database.open(path: database, openTimeout: .seconds(60))
        #expect(try reopened.snapshot().table("log").count >= 3)
    }

    /// Waits until process `pid` is stopped (state `T` in `/proc/<pid>/stat`), at most a minute.
    static func waitUntilStopped(_ pid: Int32) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        while clock.now - started < .seconds(60) {
            // The state follows the command name, which is in parentheses and may hold spaces.
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if let closing = stat.lastIndex(of: ")"), stat[closing...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("T") { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("process \(pid) did not stop within a minute")
    }

    /// Whether another open file description holds `byte` of the lock file exclusively (a
    /// shared probe meets only an exclusive lock).
    static func isHeldExclusively(_ descriptor: Int32, byte: Int) -> Bool {
        var probe = FileLocks.request(F_RDLCK, start: byte, length: 1)
        guard fcntl(descriptor, FileLocks.getLock, &probe) == 0 else { return false }
        return probe.l_type != Int16(F_UNLCK)
    }
}
