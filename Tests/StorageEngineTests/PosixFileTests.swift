import Foundation
import Glibc
import Testing
@testable import StorageEngine
import TestSupport

@Suite("POSIX file")
struct PosixFileTests {
    /// The first hole at or after `offset`, or the file's end if there is none.
    static func firstHole(in path: String, from offset: UInt64) -> UInt64 {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        return UInt64(lseek(descriptor, off_t(offset), PosixFile.seekHole))
    }

    @Test("a read at an offset no file offset can hold (a damaged reference) throws fileCorrupted instead of stopping")
    func readPastLargestOffset() throws {
        let directory = TemporaryDirectory()
        let file = try PosixFile(path: directory.filePath("f"), create: true, readOnly: false)
        try file.write([1, 2, 3], at: 0)
        for offset in [UInt64(Int64.max), UInt64(Int64.max) - 2, UInt64.max - 1] {
            let error = #expect(throws: StorageError.self) { _ = try file.read(count: 4, at: offset) }
            #expect(error?.code == .fileCorrupted, "offset \(offset)")
        }
        // The fuzz input that found it: a header whose commit record lies past that offset.
        let image = try Data(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/file/crash-offset-past-off_t"))
        let path = directory.filePath("fuzzed")
        try image.write(to: URL(fileURLWithPath: path))
        #expect(throws: StorageError.self) { _ = try Database.open(path: path, create: false, readOnly: true).snapshot() }
    }

    @Test("prepareForWriting zeroes the holes of its range and leaves the bytes before it alone")
    func prepareZeroesHoles() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("holes")
        let file = try PosixFile(path: path, create: true, readOnly: false)
        try file.write([UInt8](repeating: 7, count: 100), at: 0)
        // The write grew the file sparsely: past the first block it is a hole (where the file
        // system reports holes at all; otherwise there is nothing to check).
        guard try Self.firstHole(in: path, from: 0) < file.size() else { return }
        try file.prepareForWriting(8192..<(8192 + 300_000))
        #expect(Self.firstHole(in: path, from: 8192) >= 8192 + 300_000 - 4096)
        #expect(try file.read(count: 100, at: 0) == [UInt8](repeating: 7, count: 100))
        #expect(try file.read(count: 1000, at: 9000) == [UInt8](repeating: 0, count: 1000))
    }

    @Test("a durable write lands whole, inside the file (one pwritev2 with RWF_DSYNC) and past its end (a write and a sync), on a direct descriptor and a buffered one", arguments: [true, false])
    func durableWrite(direct: Bool) throws {
        let directory = TemporaryDirectory()
        let file = try PosixFile(path: directory.filePath("durable"), create: true, readOnly: false, direct: direct)
        // Aligned memory, as a direct descriptor needs (the redo log's staging buffer is).
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 4096)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        // The file grows in chunks: its first write leaves room for the durable ones after.
        try file.write(UnsafeRawBufferPointer(rebasing: bytes[..<4096]), at: 0)
        let readBack = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 4096)
        defer { readBack.deallocate() }
        for (index, offset) in [UInt64(0), 4096, 1 << 24].enumerated() {
            for position in 0..<bytes.count { bytes[position] = UInt8((position + index * 7) % 251) }
            try file.writeDurably(UnsafeRawBufferPointer(bytes), at: offset)
            try file.read(into: readBack, at: offset)
            #expect(Array(readBack) == Array(bytes), "at \(offset)")
        }
        #expect(try file.size() >= (1 << 24) + 8192)
    }

    @Test("a gathering write of more parts than one pwritev takes lands in order, and a page writer's run with it")
    func gatheringWrite() throws {
        let directory = TemporaryDirectory()
        let file = try PosixFile(path: directory.filePath("gathered"), create: true, readOnly: false)
        // 2,500 parts of 1 to 7 bytes: three calls' worth, with parts of every length.
        let parts: [[UInt8]] = (0..<2_500).map { index in [UInt8](repeating: UInt8(index % 251), count: 1 + index % 7) }
        let expected = parts.flatMap { $0 }
        var pointers: [UnsafeRawBufferPointer] = []
        for part in parts { part.withUnsafeBytes { pointers.append($0) } }
        try withExtendedLifetime(parts) { try file.write(gathering: pointers, at: 4096) }
        #expect(try file.read(count: expected.count, at: 4096) == expected)

        // A page writer's run of padded pages, through the same call.
        let writer = PageWriter(file: file)
        for index in 0..<300 {
            try writer.write([UInt8](repeating: UInt8(index % 200 + 1), count: 100), at: 1_000_000 + UInt64(index) * 128, paddedTo: 128)
        }
        try writer.flush()
        for index in [0, 1, 150, 299] {
            let page = try file.read(count: 128, at: 1_000_000 + UInt64(index) * 128)
            #expect(page == [UInt8](repeating: UInt8(index % 200 + 1), count: 100) + [UInt8](repeating: 0, count: 28), "page \(index)")
        }
    }

    @Test("growing the file never cuts off what another descriptor (another process) wrote past this one's length")
    func growthKeepsOthersWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("shared")
        let first = try PosixFile(path: path, create: true, readOnly: false)
        try first.write([1], at: 0)
        // Another process grows the file well past the first descriptor's cached length...
        let second = try PosixFile(path: path, create: false, readOnly: false)
        try second.write([UInt8](repeating: 9, count: 4096), at: 5 << 20)
        // ...and the first then writes past its own cached length, below the other's data.
        try first.write([UInt8](repeating: 3, count: 100), at: (1 << 20) + 10)
        #expect(try second.read(count: 4096, at: 5 << 20) == [UInt8](repeating: 9, count: 4096))
        #expect(try first.size() >= (5 << 20) + 4096)
    }

    @Test("each commit leaves no hole just past its data, and reopening reads every commit back")
    func commitsPrepareTheTail() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("tail.realm")
        var database: Database? = try Database.open(path: path)
        for round in 0..<50 {
            try database!.write { transaction in
                try transaction.createTable("t").insert([.int(Int64(round)), .string(String(repeating: "x", count: round * 40))])
            }
            let end = database!.shared.knownHeader.end
            let hole = Self.firstHole(in: path, from: end)
            let size = try PosixFile(path: path, create: false, readOnly: true).size()
            #expect(hole >= end + WriteTransaction.preparedTailBytes - 4096 || hole == size,
                    "round \(round): hole at \(hole), data ends at \(end)")
        }
        database = nil
        let reopened = try Database.open(path: path)
        var rounds: [Int64] = []
        try reopened.snapshot().table("t").scan { _, row in
            if case .int(let round) = try row.column(0) { rounds.append(round) }
            return true
        }
        #expect(rounds == Array(0..<50))
    }

    @Test("a file deleted and created again under its path opens as the new file, while the process still holds the old")
    func recreatedFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("db")
        let old = try Database.open(path: path)
        try old.write { transaction in _ = try transaction.createTable("t").insert([.int(1)], forKey: 1) }
        for suffix in ["", ".lock", ".log"] { unlink(path + suffix) }
        let new = try Database.open(path: path)
        #expect(new.shared !== old.shared)
        #expect(try new.snapshot().catalog.tables["t"] == nil)
        try new.write { transaction in _ = try transaction.createTable("t").insert([.int(2)], forKey: 2) }
        #expect(try contents(of: "t", in: try Database.open(path: path).snapshot()) == [2: [.int(2)]])
        #expect(try contents(of: "t", in: try old.snapshot()) == [1: [.int(1)]])
        // The same file again shares the state.
        #expect(try Database.open(path: path).shared === new.shared)
    }
}
