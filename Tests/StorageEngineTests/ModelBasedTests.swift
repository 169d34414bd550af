import Testing
@testable import StorageEngine
import TestSupport

/// A seeded random mix of puts, deletes, commits, rollbacks, snapshot opens and reopens, checked
/// after every step against a dictionary per version. Replay a failure with ASYNCREALM_SEED.
@Suite("Model-based engine test")
struct ModelBasedTests {
    typealias Model = [UInt64: [RowValue]]

    @Test("10,000 random steps agree with a dictionary model per version", arguments: [false, true])
    func randomSteps(encrypted: Bool) throws {
        let seed = testSeed()
        let key = testKey(encrypted: encrypted)
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        let path = directory.filePath("model.realm")
        var database = try Database.open(path: path, encryptionKey: key)
        var models: [UInt64: Model] = [0: [:]]
        var latest: UInt64 = 0
        var transaction: WriteTransaction?
        var pending: Model = [:]
        var snapshots: [Snapshot] = []
        let failure: Comment = "replay with ASYNCREALM_SEED=\(seed)"

        func randomValue() -> [RowValue] {
            let roll = Int.random(in: 0..<100, using: &random)
            let length = roll < 3 ? Int.random(in: 4_100...9_000, using: &random) : Int.random(in: 0...120, using: &random)
            let fill = UInt8.random(in: 0...255, using: &random)
            return [.binary([UInt8](repeating: fill, count: length)), .int(Int64.random(in: -1000...1000, using: &random))]
        }

        func check(_ table: some TableReading, against model: Model, fully: Bool) throws {
            #expect(table.count == model.count, failure)
            if fully {
                var seen = 0
                try table.scan { (key, row) throws in
                    #expect(try row.decoded() == model[key], "key \(key); \(failure)")
                    seen += 1
                    return true
                }
                #expect(seen == model.count, failure)
            } else {
                for _ in 0..<3 {
                    let key = UInt64.random(in: 1...1500, using: &random)
                    #expect(try table.row(key) == model[key], "key \(key); \(failure)")
                }
            }
        }

        func checkSnapshot(_ snapshot: Snapshot, fully: Bool) throws {
            let model = try #require(models[snapshot.version], failure)
            if let table = snapshot.tableIfPresent("rows") {
                try check(table, against: model, fully: fully)
            } else {
                #expect(model.isEmpty, failure)
            }
        }

        for step in 0..<10_000 {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<55:
                if transaction == nil {
                    transaction = try database.beginWrite()
                    pending = models[latest]!
                }
                let table = transaction!.createTable("rows")
                let key = UInt64.random(in: 1...1500, using: &random)
                if roll < 40 {
                    let value = randomValue()
                    if pending[key] == nil { try table.insert(value, forKey: key) } else { try table.update(key, to: value) }
                    pending[key] = value
                } else {
                    #expect(try table.delete(key) == (pending.removeValue(forKey: key) != nil), failure)
                }
                try check(table, against: pending, fully: step % 500 == 0)
            case 55..<66:
                guard let open = transaction else { continue }
                let result = try open.commit()
                transaction = nil
                if result.version != latest {
                    #expect(result.version == latest + 1, failure)
                    latest = result.version
                    models[latest] = pending
                }
                try checkSnapshot(try database.snapshot(), fully: true)
            case 66..<70:
                transaction?.rollback()
                transaction = nil
                try checkSnapshot(try database.snapshot(), fully: false)
            case 70..<76:
                snapshots.append(try database.snapshot())
            case 76..<80:
                if !snapshots.isEmpty { snapshots.remove(at: Int.random(in: 0..<snapshots.count, using: &random)) }
            case 80..<82:
                transaction?.rollback()
                transaction = nil
                database = try Database.open(path: path, encryptionKey: key)
                try checkSnapshot(try database.snapshot(), fully: true)
                #expect(try spaceAccountingProblem(in: PosixFile(path: path, create: false, readOnly: true), key: key) == nil, failure)
            default:
                if let snapshot = snapshots.randomElement(using: &random) {
                    try checkSnapshot(snapshot, fully: roll > 95)
                }
            }
            // Forget models no snapshot can ask for any more.
            let live = Set(snapshots.map(\.version)).union([latest])
            for version in models.keys where !live.contains(version) { models[version] = nil }
        }
        transaction?.rollback()
        for snapshot in snapshots { try checkSnapshot(snapshot, fully: true) }
    }
}
