import Foundation
import Testing
@testable import StorageEngine
import TestSupport

/// Pages of a bulk append's full leaves, written by the encoding queue before the commit
/// (`EarlyPageWrites`).
@Suite("Pages written ahead of a commit")
struct EarlyPageWritesTests {
    /// Appends rows `keys` of 30-70 random bytes (about 160 rows a leaf) to `tree` and `model`.
    private func append(_ keys: ClosedRange<UInt64>, to tree: MutableTree, model: inout [UInt64: [UInt8]], random: inout SeededGenerator) throws {
        for key in keys {
            let bytes = (0..<(30 + Int(key % 41))).map { _ in UInt8.random(in: 0...255, using: &random) }
            try tree.append(key, bytes)
            model[key] = bytes
        }
    }

    private func rows(of file: any FileIO) throws -> [UInt64: [UInt8]] {
        let database = try Database.open(file: file)
        guard let root = try database.snapshot().catalog.tables["t"]?.rows else { return [:] }
        var rows: [UInt64: [UInt8]] = [:]
        try TreeReader(store: database.shared.store, root: root).scan { key, bytes in
            rows[key] = Array(bytes)
            return true
        }
        return rows
    }

    /// Expects `file` to hold exactly `model`'s rows, with every byte of it accounted for.
    private func expectIntact(_ file: any FileIO, holding model: [UInt64: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try rows(of: file) == model, sourceLocation: sourceLocation)
        #expect(try spaceAccountingProblem(in: file) == nil, sourceLocation: sourceLocation)
    }

    /// The byte ranges `log` wrote.
    private func writes(in log: [FaultInjectingFile.Operation]) -> [Range<UInt64>] {
        log.compactMap { operation in
            guard case .write(let offset, let bytes) = operation else { return nil }
            return offset..<(offset + UInt64(bytes.count))
        }
    }

    /// The pages of the row tree's leaves in the newest version.
    private func leafPages(of file: any FileIO) throws -> [PageRef] {
        let database = try Database.open(file: file)
        let store = database.shared.store
        var pages: [PageRef] = []
        func walk(_ ref: PageRef) throws {
            switch try store.node(ref) {
            case .leaf: pages.append(ref)
            case .branch(let branch):
                for case .stored(let child) in branch.children { try walk(child) }
            }
        }
        try walk(try #require(try database.snapshot().catalog.tables["t"]).rows)
        return pages
    }

    @Test("a bulk append's leaves are written before the commit, which references them, and the space it does not use goes back", arguments: [false, true])
    func writtenAhead(onDisk: Bool) throws {
        let directory = TemporaryDirectory()
        let injecting = FaultInjectingFile()
        let file: any FileIO = onDisk ? try PosixFile(path: directory.filePath("ahead.db"), create: true, readOnly: false) : injecting
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        var random = SeededGenerator(seed: testSeed())
        var before: [Range<UInt64>] = []
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            injecting.clearLog()
            try append(1...30_000, to: tree, model: &model, random: &random)
            tree.earlyEncoding?.waitForSubmitted()
            before = writes(in: injecting.log)
            // Rows in leaves written ahead, changed: the commit writes those leaves again, and
            // gives back the space of the pages written for them.
            for key in stride(from: UInt64(5_003), through: 25_000, by: 1_999) {
                let bytes = [UInt8](repeating: 0xEE, count: 33)
                try tree.put(key, bytes)
                model[key] = bytes
            }
            #expect(try tree.delete(17_777))
            model[17_777] = nil
        }
        try expectIntact(file, holding: model)
        guard !onDisk else { return }
        // Most leaves are where they were written before the commit began.
        let leaves = try leafPages(of: file)
        let early = leaves.filter { page in before.contains { $0.contains(page.offset) } }
        #expect(leaves.count > 150)
        #expect(early.count > leaves.count / 2, "\(early.count) of \(leaves.count) leaves written ahead")

        // A second bulk transaction reuses the space the first gave back, and accounts for it.
        try database.write { transaction in
            let tree = try transaction.table("t").rowTree
            try append(30_001...45_000, to: tree, model: &model, random: &random)
        }
        try expectIntact(file, holding: model)
    }

    @Test("a crash at any write of a bulk commit whose pages were written ahead leaves the old or the new version")
    func crashDuringWritesAhead() throws {
        let file = FaultInjectingFile()
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        var random = SeededGenerator(seed: testSeed())
        try database.write { transaction in
            try append(1...2_000, to: transaction.createTable("t").rowTree, model: &model, random: &random)
        }
        let before = model
        let base = file.contents
        file.clearLog()
        try database.write { transaction in
            let tree = try transaction.table("t").rowTree
            try append(2_001...30_000, to: tree, model: &model, random: &random)
            tree.earlyEncoding?.waitForSubmitted()
            // A leaf written ahead, changed: its page is written again by the commit.
            try tree.put(9_001, [7, 7, 7])
            model[9_001] = [7, 7, 7]
        }
        let log = file.log
        #expect(writes(in: log).count > 5, "the pages went out in runs ahead of the commit")
        var outcomes: [Bool: Int] = [:]
        for (index, operation) in log.enumerated() {
            guard case .write(_, let bytes) = operation else { continue }
            for outcome: FaultInjectingFile.CrashOutcome in [.dropUnsynced, .tornWrite(prefix: bytes.count / 2), .tornWrite(prefix: bytes.count)] {
                let image = FaultInjectingFile.crashImage(base: base, log: log, crashingAt: index, outcome: outcome)
                let seen = try rows(of: InMemoryFile(contents: image))
                #expect(seen == before || seen == model, "write \(index) of \(log.count), \(outcome): neither version")
                outcomes[seen == model, default: 0] += 1
            }
        }
        #expect(outcomes[false, default: 0] > 0 && outcomes[true, default: 0] > 0, "crash points cover both outcomes: \(outcomes)")
    }

    @Test("after a failed write ahead, the commit writes every leaf itself")
    func failedWriteAhead() throws {
        let file = FaultInjectingFile()
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        var random = SeededGenerator(seed: testSeed())
        try database.write { transaction in
            let tree = transaction.createTable("t").rowTree
            try append(1...6_000, to: tree, model: &model, random: &random)
            tree.earlyEncoding?.waitForSubmitted()
            // The next run's write fails; the pages placed before it are void too.
            file.failWrites(after: 0, with: StorageError(.ioError, "injected"))
            try append(6_001...30_000, to: tree, model: &model, random: &random)
            tree.earlyEncoding?.waitForSubmitted()
            file.stopFailing()
        }
        try expectIntact(file, holding: model)
    }

    @Test("nothing is written ahead once the transaction has rolled back, and the next commit accounts for the space")
    func rolledBack() throws {
        let file = FaultInjectingFile()
        let database = try Database.open(file: file)
        var model: [UInt64: [UInt8]] = [:]
        var random = SeededGenerator(seed: testSeed())
        try database.write { transaction in
            try append(1...1_000, to: transaction.createTable("t").rowTree, model: &model, random: &random)
        }
        let transaction = try database.beginWrite()
        let tree = try transaction.table("t").rowTree
        var discarded: [UInt64: [UInt8]] = [:]
        try append(1_001...10_000, to: tree, model: &discarded, random: &random)
        tree.earlyEncoding?.waitForSubmitted()
        // Leaves handed over while the queue is held wait until after the rollback: their jobs
        // may encode them then, but must not write.
        EarlyLeafEncoding.queue.suspend()
        try append(10_001...30_000, to: tree, model: &discarded, random: &random)
        transaction.rollback()
        file.clearLog()
        EarlyLeafEncoding.queue.resume()
        tree.earlyEncoding?.waitForSubmitted()
        #expect(writes(in: file.log).isEmpty)

        try database.write { transaction in
            try append(1_001...20_000, to: try transaction.table("t").rowTree, model: &model, random: &random)
        }
        try expectIntact(file, holding: model)
    }
}
