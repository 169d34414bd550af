import Foundation
import Testing
@testable import StorageEngine
import TestSupport

/// Small commits made durable by the redo log (see `LogEpoch` and `Docs/Internals/RedoLog.md`).
@Suite("Commits through the redo log")
struct LoggedCommitTests {
    /// The newest complete version the file itself holds, read as another process would.
    static func versionOnDisk(_ path: String) throws -> UInt64 {
        let file = try PosixFile(path: path, create: false, readOnly: true)
        let store = PageStore(file: file, cache: PageCache(capacityBytes: 1 << 20))
        return try FileHeader.read(from: file) { CommitRecord.missingPart(of: $0, store: store) }.header.version
    }

    /// Creates table "t" (a commit to the file) and inserts keys 1...count, one commit each.
    static func insertRows(_ database: Database, count: Int) throws {
        try database.write { $0.createTable("t") }
        for key in UInt64(1)...UInt64(count) {
            try database.write { try $0.table("t").insert([.int(Int64(key)), .string("row \(key)")], forKey: key) }
        }
    }

    /// Opens the database file `name` in `directory`, with table "t" holding keys 1...`rows`,
    /// inserted as `insertRows` does.
    static func openWithRows(_ name: String, in directory: TemporaryDirectory, rows: Int) throws -> (path: String, database: Database) {
        let path = directory.filePath(name)
        let database = try Database.open(path: path)
        try insertRows(database, count: rows)
        return (path, database)
    }

    static func expectRows(_ database: Database, count: Int) throws {
        let table = try database.snapshot().table("t")
        #expect(table.count == count)
        #expect(try table.keys() == Array(UInt64(1)...UInt64(count)))
        #expect(try table.row(UInt64(count)) == [.int(Int64(count)), .string("row \(count)")])
    }

    @Test("small commits go to the log, not the file, and the last handle's close writes them into the file")
    func closeCheckpoints() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("logged.realm")
        var database: Database? = try Database.open(path: path)
        try Self.insertRows(database!, count: 20)
        #expect(database!.shared.epoch.withLock { $0?.commits } == 20)
        #expect(try database!.newestVersion() == 21)
        #expect(try Self.versionOnDisk(path) == 1, "the logged commits are in the log only")
        database = nil
        #expect(try Self.versionOnDisk(path) == 21, "closing checkpoints, under the newest version's number")
        let reopened = try Database.open(path: path)
        #expect(try reopened.shared.unappliedLogRecords() == nil)
        try Self.expectRows(reopened, count: 20)
    }

    @Test("a process opening the file while another logs waits for a checkpoint, and no commit is logged while both have it open")
    func openerWaitsForCheckpoint() throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("shared.realm", in: directory, rows: 10)
        #expect(try Self.versionOnDisk(path) == 1)
        // A reader table of its own opens the lock file as another process would.
        var other: ReaderTable? = try ReaderTable(lockFilePath: path + ".lock")
        #expect(database.shared.epoch.withLock { $0 } == nil, "the watcher ended the epoch for the other process")
        // The checkpoint writes the newest logged version under its own number.
        #expect(try Self.versionOnDisk(path) == 11, "every logged commit is in the file once the other process is in")
        #expect(try database.newestVersion() == 11)
        try database.write { try $0.table("t").insert([.int(11), .string("row 11")], forKey: 11) }
        #expect(database.shared.epoch.withLock { $0 } == nil)
        #expect(try Self.versionOnDisk(path) == 12, "with another process in, commits go to the file")
        other = nil
        _ = other
        try database.write { try $0.table("t").insert([.int(12), .string("row 12")], forKey: 12) }
        #expect(database.shared.epoch.withLock { $0?.commits } == 1, "alone again, the process logs")
        try Self.expectRows(database, count: 12)
    }

    @Test("an idle epoch is checkpointed under its newest version's number, and snapshots of logged versions stay readable")
    func idleCheckpoint() async throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("idle.realm", in: directory, rows: 10)
        let logged = try database.snapshot()
        #expect(logged.version == 11 && logged.catalog.tables["t"]!.rows.isSynthetic)
        let deadline = ContinuousClock.now + .seconds(30)
        while database.shared.epoch.withLock({ $0 != nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(database.shared.epoch.withLock { $0 } == nil, "the watcher checkpoints an epoch idle for a second")
        #expect(try Self.versionOnDisk(path) == 11)
        #expect(try database.newestVersion() == 11)
        // Later commits retire the nodes the logged snapshot reads; they stay until it goes.
        for key in UInt64(11)...20 {
            try database.write { try $0.table("t").update(key - 10, to: [.int(0), .string("changed")]) }
        }
        #expect(try database.newestVersion() == 21)
        #expect(logged.version == 11)
        let table = try logged.table("t")
        #expect(table.count == 10)
        #expect(try table.row(3) == [.int(3), .string("row 3")])
    }

    @Test("a process opening the file gets in while this one commits in a tight loop")
    func openerGetsInDuringCommits() async throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("busy.realm", in: directory, rows: 1)
        let stop = Flag()
        let stoppedByOpener = Flag()
        let finished = Flag()
        // A thread of its own: a loop of commits would hold a thread of the shared pool.
        let writer = Thread {
            var key: UInt64 = 2
            let deadline = ContinuousClock.now + .seconds(60)
            while !stop.isSet, ContinuousClock.now < deadline {
                do {
                    try database.write { try $0.table("t").insert([.int(Int64(key)), .string("row \(key)")], forKey: key) }
                } catch {
                    Issue.record(error)
                    break
                }
                key += 1
            }
            if stop.isSet { stoppedByOpener.set() }
            finished.set()
        }
        writer.start()
        while database.shared.epoch.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(1)) }
        let other = try ReaderTable(lockFilePath: path + ".lock")
        stop.set()
        while !finished.isSet { try await Task.sleep(for: .milliseconds(1)) }
        #expect(stoppedByOpener.isSet, "the other process got in only once the writer stopped")
        _ = other
    }

    @Test("a checkpoint the watcher asks for is made by the next commit, which writes to the file")
    func requestedCheckpoint() throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("requested.realm", in: directory, rows: 5)
        // What the watcher does when it cannot take the writer lock itself.
        database.shared.checkpointRequested.withLock { $0 = true }
        try database.write { try $0.table("t").insert([.int(6), .string("row 6")], forKey: 6) }
        #expect(database.shared.epoch.withLock { $0 } == nil)
        #expect(try Self.versionOnDisk(path) == 7)
        #expect(!database.shared.checkpointRequested.withLock { $0 })
        try Self.expectRows(database, count: 6)
    }

    /// Copies the database and its log while the process logs: the files as a crash would leave
    /// them, since every logged commit was synced.
    static func crashCopy(of path: String, to copy: String) throws {
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + ".log", toPath: copy + ".log")
    }

    @Test("opening after a crash applies the logged commits, once; a read-only handle refuses to open before")
    func recovery() throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("live.realm", in: directory, rows: 30)
        // Open to the end, so that its epoch is too, as a crashed process's would be.
        defer { withExtendedLifetime(database) {} }
        let crashed = directory.filePath("crashed.realm")
        try Self.crashCopy(of: path, to: crashed)
        let readOnlyCopy = directory.filePath("readonly.realm")
        try Self.crashCopy(of: path, to: readOnlyCopy)
        #expect(try Self.versionOnDisk(crashed) == 1)

        do {
            let recovered = try Database.open(path: crashed)
            try Self.expectRows(recovered, count: 30)
            #expect(try Self.versionOnDisk(crashed) > 1, "applied to the file, not only to memory")
        }
        // The log's records are stale now: opening again applies nothing twice.
        let again = try Database.open(path: crashed)
        try Self.expectRows(again, count: 30)
        #expect(try again.shared.unappliedLogRecords() == nil)

        #expect(throws: StorageError.self) { try Database.open(path: readOnlyCopy, readOnly: true) }
        try Self.expectRows(try Database.open(path: readOnlyCopy), count: 30)
    }

    @Test("a log is applied only to the file it was written for, not to another at its path with the same history")
    func foreignLog() throws {
        let directory = TemporaryDirectory()
        let (path, database) = try Self.openWithRows("first.realm", in: directory, rows: 5)
        defer { withExtendedLifetime(database) {} }
        // A file created anew with the very same first commit: same version, same layout.
        let other = directory.filePath("other.realm")
        do {
            let fresh = try Database.open(path: other)
            try fresh.write { $0.createTable("t") }
        }
        try FileManager.default.copyItem(atPath: path + ".log", toPath: other + ".log")
        let reopened = try Database.open(path: other)
        #expect(try reopened.snapshot().table("t").count == 0)
    }

    @Test("a logged transaction rolled back leaves the newest version as it was; the next one logs on")
    func rollback() throws {
        let directory = TemporaryDirectory()
        let (_, database) = try Self.openWithRows("rollback.realm", in: directory, rows: 3)
        let transaction = try database.beginWrite()
        try transaction.table("t").insert([.int(99), .string("gone")], forKey: 99)
        transaction.rollback()
        #expect(try database.newestVersion() == 4)
        try database.write { try $0.table("t").insert([.int(4), .string("row 4")], forKey: 4) }
        try Self.expectRows(database, count: 4)
        #expect(database.shared.epoch.withLock { $0?.commits } == 4)
    }

    @Test("a logged commit whose record cannot be made durable fails, holds none of its nodes in memory, and changes nothing; the next one logs on")
    func failedRecord() throws {
        let directory = TemporaryDirectory()
        let database = try Database.open(path: directory.filePath("failed.realm"))
        // The log on a file that can be told to fail, in place before the first epoch opens one.
        let logFile = FaultInjectingFile()
        try database.shared.redoLog.withLock { $0 = try RedoLog.create(in: logFile, baseVersion: 0) }
        try Self.insertRows(database, count: 3)
        database.shared.releaseRetiredHeldNodes()
        let held = database.shared.store.cache.heldBytes
        let version = try database.newestVersion()
        #expect(held > 0)

        logFile.failSyncs(with: StorageError(.ioError, "injected: the disk is gone"))
        #expect(throws: StorageError.self) {
            try database.write { try $0.table("t").insert([.int(4), .string("row 4")], forKey: 4) }
        }
        #expect(database.shared.store.cache.heldBytes == held)
        #expect(try database.newestVersion() == version)
        try Self.expectRows(database, count: 3)

        logFile.stopFailing()
        try database.write { try $0.table("t").insert([.int(4), .string("row 4")], forKey: 4) }
        try Self.expectRows(database, count: 4)
        #expect(database.shared.epoch.withLock { $0?.commits } == 4)
        let (_, records) = try #require(try RedoLog.open(InMemoryFile(contents: logFile.contents)))
        #expect(records.count == 4)
    }
}
