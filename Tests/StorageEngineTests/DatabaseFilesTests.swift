import Foundation
import Testing
@testable import StorageEngine
import TestSupport

@Suite("Deleting a database's files")
struct DatabaseFilesTests {
    @Test("deleteFiles removes the file, its lock and its log, and says whether there was a file")
    func deletesEveryFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("db")
        #expect(try Database.deleteFiles(atPath: path) == false)
        do {
            let database = try Database.open(path: path)
            try database.write { try $0.createTable("t").insert([.int(1)], forKey: 1) }
        }
        // A log left beside the file counts as one of its files too, and so does what a
        // compaction killed part way leaves.
        for suffix in [".log", ".compacting", ".compacting.lock", ".compacting.log"] {
            _ = FileManager.default.createFile(atPath: path + suffix, contents: Data([1, 2, 3]))
        }
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        #expect(try Database.deleteFiles(atPath: path) == true)
        for suffix in ["", ".lock", ".log", ".compacting", ".compacting.lock", ".compacting.log"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) is left")
        }
        #expect(try Database.open(path: path).snapshot().tableIfPresent("t") == nil)
    }

    @Test("deleteFiles refuses with alreadyOpen while a handle of this process has the file open")
    func refusesOpenFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("db")
        let database = try Database.open(path: path)
        try database.write { try $0.createTable("t").insert([.int(1)], forKey: 1) }
        let error = #expect(throws: StorageError.self) { try Database.deleteFiles(atPath: path) }
        #expect(error?.code == .alreadyOpen)
        #expect(try database.snapshot().table("t").count == 1)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("deleteFiles refuses with alreadyOpen while another process has the file open")
    func refusesFileOpenElsewhere() async throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("db")
        let side = directory.filePath("side")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        let child = try CrashTests.run(["append", path, side, "1"])
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        // Once the child has committed, it holds the file open.
        while (try? String(contentsOfFile: side, encoding: .utf8))?.isEmpty ?? true { try await Task.sleep(for: .milliseconds(5)) }
        let error = #expect(throws: StorageError.self) { try Database.deleteFiles(atPath: path) }
        #expect(error?.code == .alreadyOpen)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// The last handle of this process let go of on another thread still holds its locks while
    /// it closes (writes its last header, syncs); a descriptor holding the open lock, let go of
    /// 100 ms later, stands for it here.
    @Test("deleteFiles waits for a handle of this process that is closing, rather than calling the file open elsewhere")
    func waitsForClosingHandle() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("db")
        do {
            let database = try Database.open(path: path)
            try database.write { try $0.createTable("t").insert([.int(1)], forKey: 1) }
        }
        let closing = try FileLocks.openLockFile(Database.realPath(path) + ".lock")
        #expect(try FileLocks.lock(closing, start: ReaderTable.openByte, length: 1, shared: true, wait: false))
        let release = Thread {
            usleep(100_000)
            close(closing)
        }
        release.start()
        #expect(try Database.deleteFiles(atPath: path) == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A `writeCopy` to a path killed part way leaves its lock file and the copy it was
    /// building beside the path; deleting the path's files removes them, unless a writer of a
    /// copy is at work there.
    @Test("deleteFiles removes what a killed writeCopy left, and leaves a working writer's files alone")
    func copyLeftovers() throws {
        let directory = TemporaryDirectory()
        let path = Database.realPath(directory.filePath("db"))
        let leftovers = [".copylock", ".copying", ".copying.lock", ".copying.log"].map { path + $0 }
        func leave() { for file in leftovers { _ = FileManager.default.createFile(atPath: file, contents: Data("left".utf8)) } }
        do {
            let database = try Database.open(path: path)
            try database.write { try $0.createTable("t").insert([.int(1)], forKey: 1) }
        }
        leave()
        #expect(try Database.deleteFiles(atPath: path) == true)
        #expect(leftovers.filter { FileManager.default.fileExists(atPath: $0) } == [])

        // Leftovers without a database: removed, and nothing was there to delete.
        leave()
        #expect(try Database.deleteFiles(atPath: path) == false)
        #expect(leftovers.filter { FileManager.default.fileExists(atPath: $0) } == [])

        // A writer holding the lock is building its copy: its files stay.
        leave()
        let writer = open(path + ".copylock", O_RDWR)
        defer { close(writer) }
        #expect(try FileLocks.lock(writer, start: 0, length: 1, wait: false))
        #expect(try Database.deleteFiles(atPath: path) == false)
        #expect(leftovers.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    }
}
