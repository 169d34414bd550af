import Foundation
import Testing
@testable import StorageEngine
import TestSupport

/// A creation that fails (the disk full) leaves no file that fails for ever (issue 26, item
/// 17): the file is emptied again, or what is left is recognised and created afresh.
@Suite("A failed creation leaves a file that opens as new")
struct FailedCreationTests {
    @Test("writing the new header fails: the file is empty again, and the next open creates it")
    func headerWriteFails() throws {
        let file = FaultInjectingFile()
        file.failWrites(after: 0, with: StorageError(.diskFull, "no space left on device"))
        #expect(throws: StorageError.self) { _ = try Database.open(file: file) }
        let left = try file.size()
        #expect(left == 0, "the failed creation left \(left) bytes")
        file.stopFailing()
        let database = try Database.open(file: file)
        try database.write { transaction in try transaction.createTable("t").insert([.int(1)]) }
        #expect(try database.snapshot().table("t").count == 1)
    }

    @Test("a file of zeros no longer than the first growth (a creation that died) opens as a new database")
    func zerosOpenAsNew() throws {
        let directory = TemporaryDirectory()
        for size in [Int(FileHeader.dataStart), 4096 * 3, Int(PosixFile.minimumGrowth)] {
            let path = directory.filePath("zeros-\(size).realm")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: size)))
            let database = try Database.open(path: path)
            try database.write { transaction in try transaction.createTable("t").insert([.int(1)]) }
            #expect(try database.snapshot().table("t").count == 1, "size \(size)")
        }
    }

    @Test("a file with a byte set, or longer than the first growth, is reported damaged and left as it is")
    func damagedIsNotOverwritten() throws {
        let directory = TemporaryDirectory()
        var marked = Data(count: Int(PosixFile.minimumGrowth))
        marked[Int(FileHeader.dataStart) + 100] = 1
        let longer = Data(count: Int(PosixFile.minimumGrowth) + 4096)
        for (name, contents) in [("marked", marked), ("longer", longer)] {
            let path = directory.filePath("\(name).realm")
            #expect(FileManager.default.createFile(atPath: path, contents: contents))
            let error = #expect(throws: StorageError.self) { _ = try Database.open(path: path) }
            #expect(error?.code == .fileCorrupted, "\(name)")
            #expect(FileManager.default.contents(atPath: path) == contents, "\(name) was changed")
        }
    }

    /// A file another opener is creating at this moment: grown to its first growth and still
    /// zeros when its size is asked, cut back to the header before the zeros past the header are
    /// read (what `Database.initialize` does between an unlocked opener's two looks).
    final class FileBeingCreated: FileIO, @unchecked Sendable {
        let memory = InMemoryFile()
        var alignment: Int { 1 }
        init() throws { try memory.truncate(to: PosixFile.minimumGrowth) }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
            if buffer.count > Int(FileHeader.dataStart) { try memory.truncate(to: FileHeader.dataStart) }
            try memory.read(into: buffer, at: offset)
        }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try memory.write(bytes, at: offset) }
        func write(gathering parts: [UnsafeRawBufferPointer], at offset: UInt64) throws { try memory.write(gathering: parts, at: offset) }
        func sync() throws {}
        func startWriteback(_ range: Range<UInt64>) {}
        func size() throws -> UInt64 { try memory.size() }
        func truncate(to length: UInt64) throws { try memory.truncate(to: length) }
    }

    @Test("a file that another opener cuts back while this one looks at it unlocked is taken as new (to look at again under the lock), not as damaged")
    func lookWhileCreated() throws {
        #expect(Database.mayBeNew(try FileBeingCreated()))
    }

    /// The race itself, which the look above made fail now and then (a guide's test of eight
    /// actors opening one new file failed so, once in seven runs).
    @Test("openers racing to create one new file all open it")
    func concurrentCreation() async throws {
        let directory = TemporaryDirectory()
        for round in 0..<100 {
            let path = directory.filePath("new-\(round).realm")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try Database.open(path: path).snapshot() }
                }
                try await group.waitForAll()
            }
        }
    }
}
