import Synchronization
import Testing
@testable import StorageEngine
import TestSupport

@Suite("Snapshot isolation and space reuse")
struct SnapshotIsolationTests {
    @Test("readers keep seeing their version while a writer commits 100 versions")
    func readersKeepTheirVersion() async throws {
        let directory = TemporaryDirectory()
        let database = try Database.open(path: directory.filePath("isolation.realm"))
        try database.write { transaction in
            let table = transaction.createTable("t")
            for row in 0..<300 { try table.insert([.int(0), .string("row \(row)")]) }
        }
        let writerDone = Flag()
        let readers = try (0..<4).map { _ in try database.snapshot() }
        let expectedVersion = readers[0].version

        let writer = Task.detached {
            for round in 1...100 {
                try database.write { transaction in
                    let table = try transaction.table("t")
                    for key in try table.keys() where key % 3 == UInt64(round % 3) {
                        try table.set(key, column: 0, to: .int(Int64(round)))
                    }
                    if round % 10 == 0 { try table.delete(UInt64(round)) }
                    try table.insert([.int(Int64(round)), .string("new")])
                }
            }
            writerDone.set()
        }

        try await withThrowingTaskGroup(of: Int.self) { group in
            for reader in readers {
                group.addTask {
                    var passes = 0
                    repeat {
                        let table = try reader.table("t")
                        #expect(table.count == 300)
                        try table.scan { (_, row) throws in
                            #expect(try row.column(0) == .int(0))
                            return true
                        }
                        passes += 1
                    } while !writerDone.isSet || passes < 2
                    return passes
                }
            }
            for try await passes in group { #expect(passes >= 2) }
        }
        try await writer.value
        for reader in readers { #expect(reader.version == expectedVersion) }
        let newest = try database.snapshot()
        #expect(newest.version == expectedVersion + 100)
        #expect(try newest.table("t").count == 300 - 10 + 100)
    }

    static func rewriteAll(_ database: Database, round: Int) throws {
        try database.write { transaction in
            let table = transaction.createTable("t")
            // Random bytes, so that compression cannot hide how much space versions take.
            var random = SeededGenerator(seed: UInt64(round + 1))
            func payload() -> RowValue {
                let words = (0..<13).map { _ in random.next() }
                return .binary(words.withUnsafeBytes { Array($0.prefix(100)) })
            }
            if table.count == 0 {
                for _ in 0..<1000 { try table.insert([payload(), .int(Int64(round))]) }
            } else {
                for key in try table.keys() { try table.update(key, to: [payload(), .int(Int64(round))]) }
            }
        }
    }

    @Test("1,000 commits rewriting 1,000 rows stay in bounded space; a pinned snapshot makes the file grow until released")
    func spaceReuse() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("space.realm")
        let database = try Database.open(path: path)
        func usedBytes() -> UInt64 { database.shared.knownHeader.end }

        for round in 0..<1000 { try Self.rewriteAll(database, round: round) }
        // One version of the rows is ~110 KB; with nothing pinned, old versions are reused.
        let bound: UInt64 = 1 << 20
        #expect(usedBytes() < bound)
        #expect(try PosixFile(path: path, create: false, readOnly: true).size() < 3 * bound)

        let steady = usedBytes()
        var pinned: Snapshot? = try database.snapshot()
        for round in 1000..<1100 { try Self.rewriteAll(database, round: round) }
        let grown = usedBytes()
        #expect(grown > steady + 100 * 50_000, "a pinned snapshot keeps every later version's freed pages")
        #expect(try pinned!.table("t").value(1, column: 1) == .int(999))

        pinned = nil
        for round in 1100..<1200 { try Self.rewriteAll(database, round: round) }
        #expect(usedBytes() <= grown, "after release the pinned space is reused instead of growing the file")
        #expect(try database.snapshot().table("t").value(1000, column: 1) == .int(1199))
    }
}

@Suite("Free space")
struct FreeSpaceTests {
    @Test("aligned and unaligned allocations never overlap, aligned ones start on their boundary, and everything released is reused")
    func alignedAllocation() {
        var random = SystemRandomNumberGenerator()
        var space = FreeSpace(end: FileHeader.dataStart)
        var live: [Extent] = []
        for _ in 0..<5_000 {
            if !live.isEmpty, Bool.random(using: &random) {
                space.release(live.remove(at: Int.random(in: 0..<live.count, using: &random)))
                continue
            }
            let length = Int.random(in: 1...20_000, using: &random)
            let aligned = Bool.random(using: &random)
            let offset = aligned ? space.allocate(length, alignment: 4096) : space.allocate(length)
            let extent = Extent(offset: offset, length: FreeSpace.rounded(UInt64(length)))
            if aligned { #expect(offset % 4096 == 0) }
            #expect(extent.end <= space.end)
            #expect(!live.contains { $0.offset < extent.end && extent.offset < $0.end }, "allocated space in use")
            #expect(!space.free.contains { $0.offset < extent.end && extent.offset < $0.end }, "allocated space still listed free")
            live.append(extent)
        }
        for extent in live { space.release(extent) }
        #expect(space.end == FileHeader.dataStart && space.free.isEmpty, "releasing everything gives the whole file back")
    }
}

/// A flag set once by one task and polled by others.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
