import Dispatch
import Foundation
import Testing
@testable import StorageEngine
import TestSupport

@Suite("Write lock, reader table and changesets")
struct LockingAndChangesetTests {
    @Test("two handles on one file in one process exclude each other's writes")
    func handlesExclude() async throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("lock.realm")
        let first = try Database.open(path: path)
        let second = try Database.open(path: path)
        #expect(first.shared === second.shared, "handles in one process share the file's state")
        let transaction = try first.beginWrite()
        let secondStarted = Flag()
        let secondCommitted = Flag()
        // A thread of its own: the second handle waits for the lock by blocking, which on a
        // thread of the shared pool could keep this task from ever resuming to commit.
        let waiter = Thread {
            secondStarted.set()
            do {
                try second.write { transaction in try transaction.table("t").insert([.int(2)]) }
            } catch {
                Issue.record(error)
            }
            secondCommitted.set()
        }
        waiter.start()
        while !secondStarted.isSet { await Task.yield() }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!secondCommitted.isSet, "the second handle must wait for the first to finish")
        transaction.createTable("t")
        try transaction.table("t").insert([.int(1)])
        try transaction.commit()
        while !secondCommitted.isSet { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(try first.snapshot().table("t").keys() == [1, 2])
    }

    @Test("in-memory databases are shared by identifier while a handle lives, and vanish after")
    func inMemoryIdentifiers() throws {
        var first: Database? = try Database.inMemory(identifier: "shared")
        try first!.write { try $0.createTable("t").insert([.int(1)]) }
        var second: Database? = try Database.inMemory(identifier: "shared")
        #expect(try second!.snapshot().table("t").count == 1)
        let other = try Database.inMemory(identifier: "other")
        #expect(try other.snapshot().tableIfPresent("t") == nil)
        // The two handles exclude each other's writes through one shared lock.
        do {
            let transaction = try second!.beginWrite()
            #expect(!first!.shared.memoryLock.wait(timeout: .now()).isSuccess)
            transaction.rollback()
        }
        first = nil
        #expect(try second!.snapshot().table("t").count == 1, "alive while any handle is")
        second = nil
        #expect(try Database.inMemory(identifier: "shared").snapshot().tableIfPresent("t") == nil, "gone with the last handle")
    }

    @Test("a process's pinned version is seen by writers of other processes, until the process goes")
    func readerTable() throws {
        let directory = TemporaryDirectory()
        let lockPath = directory.filePath("pins.realm.lock")
        // Each ReaderTable has its own open file description, as a second process would.
        var reader: ReaderTable? = try ReaderTable(lockFilePath: lockPath)
        let writer = try ReaderTable(lockFilePath: lockPath)
        #expect(writer.oldestOfOtherProcesses() == nil)
        reader!.publish(5)
        #expect(writer.oldestOfOtherProcesses() == 5)
        reader!.publish(nil)
        #expect(writer.oldestOfOtherProcesses() == nil)
        reader!.publish(3)
        reader = nil  // the "process" dies: its slot lock goes with its descriptor
        #expect(writer.oldestOfOtherProcesses() == nil)
    }

    @Test("commits record inserted, deleted and modified keys with the modified columns")
    func changesets() throws {
        let database = try Database.open(file: InMemoryFile())
        let (_, first) = try database.write { transaction in
            let table = transaction.createTable("Dog")
            for age in 0..<5 { try table.insert([.string("dog \(age)"), .int(Int64(age))]) }
        }
        #expect(first.changeset.tables["Dog"]?.inserted == [1, 2, 3, 4, 5])
        let (_, second) = try database.write { transaction in
            let table = try transaction.table("Dog")
            try table.set(1, column: 1, to: .int(10))
            try table.set(2, column: 0, to: .string("renamed"))
            try table.set(2, column: 1, to: .int(20))
            try table.set(3, column: 1, to: .int(2))   // unchanged value: not a modification
            try table.delete(4)
            let added = try table.insert([.string("new"), .int(1)])
            try table.set(added, column: 1, to: .int(2))  // modified after insert: still an insert
            let gone = try table.insert([.string("gone"), .int(1)])
            try table.delete(gone)                        // inserted and deleted: nothing
        }
        let changes = try #require(second.changeset.tables["Dog"])
        #expect(changes.inserted == [6])
        #expect(changes.deleted == [4])
        #expect(changes.modified == [1: [1], 2: [0, 1]])
        #expect(second.version == first.version + 1)
        #expect(database.shared.commits(after: first.version).map(\.changeset) == [second.changeset])
    }

    @Test("a rolled-back transaction leaves nothing behind, and a read-only handle cannot write")
    func rollbackAndReadOnly() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("ro.realm")
        let database = try Database.open(path: path)
        try database.write { try $0.createTable("t").insert([.int(1)]) }
        let transaction = try database.beginWrite()
        try transaction.table("t").insert([.int(2)])
        try transaction.dropTable("t")
        transaction.rollback()
        #expect(try database.snapshot().table("t").count == 1)
        #expect(throws: StorageError.self) {
            try database.write { transaction in
                try transaction.table("t").insert([.int(3)])
                throw StorageError(.ioError, "the closure failed")
            }
        }
        #expect(try database.snapshot().table("t").count == 1)

        let readOnly = try Database.open(path: path, readOnly: true)
        #expect { try readOnly.beginWrite() } throws: { ($0 as? StorageError)?.code == .readOnly }
        #expect(try readOnly.snapshot().table("t").row(1) == [.int(1)])
        #expect { try Database.open(path: directory.filePath("missing.realm"), create: false) } throws: {
            ($0 as? StorageError)?.code == .fileNotFound
        }
    }
}

extension DispatchTimeoutResult {
    var isSuccess: Bool { self == .success }
}
