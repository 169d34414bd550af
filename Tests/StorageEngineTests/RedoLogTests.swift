import Testing
@testable import StorageEngine
import TestSupport

@Suite("Redo log")
struct RedoLogTests {
    static func payloads(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    @Test("records appended and synced read back in order after reopening, and appends continue the chain")
    func roundTrip() throws {
        let file = InMemoryFile()
        let log = try RedoLog.create(in: file, baseVersion: 40)
        let payloads = Self.payloads(100, seed: 1)
        for (position, payload) in payloads.enumerated() {
            try log.append(version: 41 + UInt64(position), payload: payload)
        }
        let (reopened, records) = try #require(try RedoLog.open(file))
        #expect(records.map(\.payload) == payloads)
        #expect(records.map(\.version) == Array(41...140))
        #expect(reopened.baseVersion == 40 && reopened.lastVersion == 140 && reopened.tail == log.tail)

        try reopened.append(version: 141, payload: [1, 2, 3])
        let (_, again) = try #require(try RedoLog.open(file))
        #expect(again.count == 101 && again.last == RedoLog.Record(version: 141, payload: [1, 2, 3]))
    }

    @Test("a file with no header, or a torn one, holds no log")
    func noHeader() throws {
        #expect(try RedoLog.open(InMemoryFile()) == nil)
        let file = InMemoryFile()
        let log = try RedoLog.create(in: file, baseVersion: 7)
        try log.append(version: 8, payload: [9])
        var header = try file.read(count: RedoLog.headerSize, at: 0)
        header[17] ^= 1
        try file.write(header, at: 0)
        #expect(try RedoLog.open(file) == nil)
    }

    @Test("a new generation makes the records left from the old one stale, even where they lie past its tail")
    func generations() throws {
        let file = InMemoryFile()
        let log = try RedoLog.create(in: file, baseVersion: 0)
        for version in UInt64(1)...10 { try log.append(version: version, payload: [UInt8](repeating: UInt8(version), count: 200)) }
        try log.startGeneration(baseVersion: 10)
        for version in UInt64(11)...13 { try log.append(version: version, payload: [UInt8(version)]) }
        let (reopened, records) = try #require(try RedoLog.open(file))
        #expect(records.map(\.version) == [11, 12, 13])
        #expect(reopened.baseVersion == 10)


        // A record of the old generation whose version is the next one is refused by its salt.
        let old = InMemoryFile()
        let first = try RedoLog.create(in: old, baseVersion: 0)
        for version in UInt64(1)...3 { try first.append(version: version, payload: [UInt8(version)]) }
        try first.startGeneration(baseVersion: 0)
        let (_, none) = try #require(try RedoLog.open(old))
        #expect(none.isEmpty)
    }

    @Test("a crash at any write of a stream of appends keeps every synced record and never a torn one")
    func crashAtEveryWrite() throws {
        let payloads = Self.payloads(12, seed: 2)
        let setup = FaultInjectingFile()
        _ = try RedoLog.create(in: setup, baseVersion: 100)
        // Zeros past the header, as in a log written in full ahead of time: a torn record is then
        // followed by zeros rather than by the end of the file.
        let base = setup.contents + [UInt8](repeating: 0, count: 64 << 10)
        let file = FaultInjectingFile(contents: base)
        let (log, existing) = try #require(try RedoLog.open(file))
        #expect(existing.isEmpty)
        for (position, payload) in payloads.enumerated() {
            try log.append(version: 101 + UInt64(position), payload: payload)
        }
        let operations = file.log
        var checked = 0
        for index in operations.indices {
            guard case .write(_, let bytes) = operations[index] else { continue }
            let synced = operations[..<index].filter { if case .sync = $0 { return true } else { return false } }.count
            for outcome in [FaultInjectingFile.CrashOutcome.dropUnsynced, .tornWrite(prefix: bytes.count / 2),
                            .tornWrite(prefix: max(bytes.count - 1, 0)), .tornWriteOnly(prefix: 27)] {
                let image = FaultInjectingFile.crashImage(base: base, log: operations, crashingAt: index, outcome: outcome)
                let (_, records) = try #require(try RedoLog.open(InMemoryFile(contents: image)))
                #expect(records.count >= synced, "crash at write \(index) (\(outcome)) lost a synced record")
                #expect(records.count <= synced + 1)
                for record in records {
                    #expect(record.payload == payloads[Int(record.version - 101)], "record \(record.version) came back different")
                }
                checked += 1
            }
        }
        #expect(checked == payloads.count * 4)
    }

    @Test("appending after a torn tail overwrites it, and the records after it read back")
    func appendAfterTornTail() throws {
        let file = InMemoryFile()
        let log = try RedoLog.create(in: file, baseVersion: 0)
        try log.append(version: 1, payload: [1, 1])
        try log.append(version: 2, payload: [UInt8](repeating: 2, count: 100))
        // Tear record 2: its payload's last bytes never reached the disk.
        try file.write([UInt8](repeating: 0, count: 8), at: log.tail - 16)
        let (reopened, records) = try #require(try RedoLog.open(file))
        #expect(records.map(\.version) == [1])
        try reopened.append(version: 2, payload: [7])
        try reopened.append(version: 3, payload: [8])
        let (_, again) = try #require(try RedoLog.open(file))
        #expect(again.map(\.payload) == [[1, 1], [7], [8]])
    }

    /// An in-memory file that refuses what a file opened with `O_DIRECT` refuses: reads and
    /// writes at unaligned offsets, of unaligned lengths or from unaligned memory.
    final class BlockFile: FileIO, @unchecked Sendable {
        let memory = InMemoryFile()
        var alignment: Int { PosixFile.directAlignment }
        var writes = 0

        func check(_ address: UnsafeRawPointer?, _ count: Int, _ offset: UInt64) {
            #expect(Int(bitPattern: address) % alignment == 0 && count % alignment == 0 && offset % UInt64(alignment) == 0,
                    "\(count) bytes at \(offset) from memory at \(String(describing: address)) are not whole aligned blocks")
        }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
            check(buffer.baseAddress, buffer.count, offset)
            try memory.read(into: buffer, at: offset)
        }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
            check(bytes.baseAddress, bytes.count, offset)
            writes += 1
            try memory.write(bytes, at: offset)
        }
        /// Set to make the next sync fail, after the bytes it was to make durable reached the
        /// file.
        var failsNextSync = false
        func sync() throws {
            if failsNextSync {
                failsNextSync = false
                throw StorageError(.ioError, "injected: the sync failed")
            }
        }
        func size() throws -> UInt64 { try memory.size() }
        func truncate(to length: UInt64) throws { try memory.truncate(to: length) }
    }

    @Test("every write of the log is whole aligned blocks, records spanning blocks and failed appends included, and what it wrote reads back")
    func wholeBlocks() throws {
        let file = BlockFile()
        let log = try RedoLog.create(in: file, baseVersion: 0)
        var random = SeededGenerator(seed: testSeed())
        var kept: [[UInt8]] = []
        for round in 0..<300 {
            let count = Int.random(in: 0...100, using: &random) < 5 ? Int.random(in: 4000...9000, using: &random) : Int.random(in: 0...200, using: &random)
            let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let version = UInt64(kept.count + 1)
            switch Int.random(in: 0..<10, using: &random) {
            case 0 where round < 299:
                // As a commit whose sync failed: the record is not part of the log, and the
                // next one is written over it.
                file.failsNextSync = true
                #expect(throws: StorageError.self) { try log.append(version: version, payload: payload) }
                #expect(log.lastVersion == version - 1)
            default:
                try log.append(version: version, payload: payload)
                kept.append(payload)
            }
        }
        #expect(file.writes > 250)
        let (reopened, records) = try #require(try RedoLog.open(file.memory))
        #expect(records.count == kept.count)
        #expect(records.map(\.payload).elementsEqual(kept), "a record read back differs from the one appended")
        #expect(reopened.tail == log.tail)

        // Opened, the log reads its tail's block back before appending.
        try reopened.append(version: UInt64(kept.count + 1), payload: [5, 6, 7])
        let (_, again) = try #require(try RedoLog.open(file.memory))
        #expect(again.count == kept.count + 1 && again.last?.payload == [5, 6, 7])
        #expect(again.dropLast().map(\.payload).elementsEqual(kept))
    }

    @Test("a log in a file opened past the page cache reads back through an ordinary descriptor, and is written through with zeros ahead of its records a chunk at a time")
    func directFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("direct.log")
        let file = try PosixFile(path: path, create: true, readOnly: false, direct: true)
        let log = try RedoLog.create(in: file, baseVersion: 9)
        let payloads = Self.payloads(1000, seed: 3)
        for (position, payload) in payloads.enumerated() {
            try log.append(version: 10 + UInt64(position), payload: payload)
            // No hole where records are (where the file system reports holes at all), and
            // not the whole log's length readied at once.
            let hole = PosixFileTests.firstHole(in: path, from: RedoLog.recordsStart)
            #expect(hole >= log.tail)
            if try position == 0 && hole < file.size() { #expect(hole <= RedoLog.recordsStart + RedoLog.prepareChunk) }
        }
        #expect(log.tail > RedoLog.recordsStart + 2 * RedoLog.prepareChunk)
        let (_, records) = try #require(try RedoLog.open(PosixFile(path: path, create: false, readOnly: true)))
        #expect(records.count == payloads.count)
        #expect(records.map(\.payload).elementsEqual(payloads))
    }
}
