import Testing
import TestSupport
@testable import StorageEngine

@Suite("Changesets between versions")
struct ChangesetDiffTests {
    typealias Model = [UInt64: [RowValue]]

    /// What changed from `old` to `new`, by comparing the whole models.
    static func expected(_ old: Model, _ new: Model) -> TableChangeset {
        var changes = TableChangeset()
        for (key, row) in new {
            guard let before = old[key] else {
                changes.insertedKeys.insert(key)
                continue
            }
            let columns = Set((0..<max(row.count, before.count)).filter {
                ($0 < row.count ? row[$0] : .null) != ($0 < before.count ? before[$0] : .null)
            })
            if !columns.isEmpty { changes.modified[key] = columns }
        }
        for key in old.keys where new[key] == nil { changes.deletedKeys.insert(key) }
        return changes
    }

    @Test("a row-key set agrees with Set through increasing runs, keys out of order and removals")
    func rowKeySet() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var keys = RowKeySet()
            var model = Set<UInt64>()
            var next: UInt64 = 1
            if Bool.random(using: &random) {
                let run = Array(UInt64(1)...UInt64.random(in: 1...300, using: &random))
                keys.insert(increasing: run)
                model.formUnion(run)
                next = run.last! + 1
            }
            for _ in 0..<400 {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    next += UInt64.random(in: 1...2, using: &random)
                    if !model.contains(next) {  // insert takes keys the set does not hold
                        keys.insert(next)
                        model.insert(next)
                    }
                case 1:
                    let key = UInt64.random(in: 1...(next + 5), using: &random)
                    if !model.contains(key) {
                        keys.insert(key)
                        model.insert(key)
                    }
                default:
                    let key = UInt64.random(in: 1...(next + 5), using: &random)
                    #expect(keys.remove(key) == (model.remove(key) != nil))
                }
                let probe = UInt64.random(in: 1...(next + 5), using: &random)
                #expect(keys.contains(probe) == model.contains(probe))
            }
            #expect(keys.set == model && keys.count == model.count)
        }
    }

    @Test("a transaction's changeset records inserts, deletes and modifications as plain sets would, in any order")
    func recordingMatchesSets() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var recorded = TableChangeset()
            var inserted: Set<UInt64> = [], deleted: Set<UInt64> = [], modified: [UInt64: Set<Int>] = [:]
            // Rows 1...100 exist before the transaction; new rows take increasing keys, mostly.
            var existing = Set<UInt64>(1...100)
            var nextKey: UInt64 = 101
            for _ in 0..<300 {
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    let key: UInt64
                    if let old = deleted.randomElement(using: &random), Bool.random(using: &random) {
                        key = old  // a deleted row's key inserted again: a replacement
                    } else {
                        key = nextKey
                        nextKey += UInt64.random(in: 1...3, using: &random)
                    }
                    guard !existing.contains(key) else { continue }
                    recorded.recordInsert(key)
                    existing.insert(key)
                    if deleted.remove(key) != nil { modified[key] = [] } else { inserted.insert(key) }
                case 1:
                    guard let key = existing.randomElement(using: &random) else { continue }
                    recorded.recordDelete(key)
                    existing.remove(key)
                    if inserted.remove(key) == nil {
                        modified[key] = nil
                        deleted.insert(key)
                    }
                default:
                    guard let key = existing.randomElement(using: &random) else { continue }
                    let column = Int.random(in: 0..<5, using: &random)
                    recorded.recordModify(key, columns: [column])
                    if !inserted.contains(key) { modified[key, default: []].insert(column) }
                }
            }
            #expect(recorded.inserted == inserted)
            #expect(recorded.deleted == deleted)
            #expect(recorded.modified == modified)
        }
    }

    @Test("the diff of any two versions equals the difference of their contents")
    func randomVersions() throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let database = try Database.open(file: InMemoryFile())
        var snapshots: [(Snapshot, Model)] = [(try database.snapshot(), [:])]
        var model: Model = [:]
        for round in 0..<25 {
            try database.write { transaction in
                let table = transaction.createTable("t")
                let operations = round == 0 ? 3000 : Int.random(in: 1...200, using: &random)
                for _ in 0..<operations {
                    let key = UInt64.random(in: 1...5000, using: &random)
                    let row: [RowValue] = [.int(Int64.random(in: 0...3, using: &random)),
                                        .binary([UInt8](repeating: 1, count: Int.random(in: 0...1, using: &random) == 0 ? 20 : 3000))]
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where model[key] != nil:
                        try table.delete(key)
                        model[key] = nil
                    default:
                        if model[key] == nil { try table.insert(row, forKey: key) } else { try table.update(key, to: row) }
                        model[key] = row
                    }
                }
            }
            snapshots.append((try database.snapshot(), model))
        }
        for _ in 0..<60 {
            let (old, oldModel) = snapshots.randomElement(using: &random)!
            let (new, newModel) = snapshots.randomElement(using: &random)!
            let diff = try Changeset.between(old, new).tables["t"] ?? TableChangeset()
            #expect(diff == Self.expected(oldModel, newModel), "versions \(old.version) -> \(new.version), seed \(seed)")
        }
    }

    @Test("a one-row change in a 100,000-row table is found by reading a handful of pages")
    func costFollowsTheChange() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in UInt64(1)...100_000 { try table.insert([.int(Int64(key)), .string("row \(key)")]) }
        }
        let old = try database.snapshot()
        try database.write { try $0.table("t").set(77_777, column: 1, to: .string("changed")) }
        let new = try database.snapshot()
        // The same versions read through a cold cache: every page the diff needs is a miss.
        let cold = PageStore(file: database.shared.file, cache: PageCache())
        let coldOld = Snapshot(version: old.version, catalog: old.catalog, store: cold, pin: old.pin)
        let coldNew = Snapshot(version: new.version, catalog: new.catalog, store: cold, pin: new.pin)
        let changes = try Changeset.between(coldOld, coldNew)
        #expect(changes.tables["t"]?.modified == [77_777: [1]])
        #expect(changes.tables["t"]?.inserted.isEmpty == true && changes.tables["t"]?.deleted.isEmpty == true)
        #expect(cold.cache.statistics.misses < 40, "the diff should read the changed pages and branches only, not \(cold.cache.statistics.misses)")
        #expect(try old.table("t").count == 100_000)
    }
}
