import Foundation
import Testing
import TestSupport
@testable import AsyncRealm
import StorageEngine

final class Measured: Object {
    @Persisted(indexed: true) var group: Int
    @Persisted var name: String
    @Persisted var value: Int
    @Persisted var level: Double
    @Persisted var maybe: Int?
    @Persisted var ratio: Double?
    @Persisted var tags: List<Int>
}

/// Counts and aggregates of filtered results: a filter the stored rows decide is counted or
/// summed in the same pass over the rows that tests them; one an index answers, or one that
/// needs the objects, reads the objects. Every path must give what Swift computes from the
/// objects themselves.
@Suite("Counts and aggregates over filtered results")
struct FilteredAggregateTests {
    static let predicates = [
        "value BETWEEN {10, 50}",            // an integer test on the rows
        "name BEGINSWITH 'a'",               // an ASCII string test on the rows
        "value > 20 AND name CONTAINS 'b'",
        "NOT (value < 30) OR maybe == nil",
        "maybe > 10",
        "group == 3",                        // the index answers
        "ANY tags > 5",                      // needs the objects' lists
        "value > 1000",                      // matches nothing
    ]

    @Test("sum, average, min and max of filtered results equal Swift's over the same objects", arguments: predicates)
    func aggregates(predicate: String) throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "filtered-aggregates-\(predicate)", objectTypes: [Measured.self]))
        let letters = Array("abcde")
        try realm.write {
            for index in 0..<3000 {
                let reading = Measured()
                reading.group = Int.random(in: 0..<8, using: &random)
                reading.name = String((0..<Int.random(in: 1...6, using: &random)).map { _ in letters.randomElement(using: &random)! })
                // Some values near Int64's limits: sums must be exact, not wrapped.
                reading.value = index % 997 == 0 ? Int.max / 4 : Int.random(in: -100...100, using: &random)
                reading.level = Double.random(in: -1000...1000, using: &random)
                reading.maybe = Bool.random(using: &random) ? Int.random(in: 0...40, using: &random) : nil
                reading.ratio = Bool.random(using: &random) ? Double.random(in: 0...1, using: &random) : nil
                reading.tags.append(objectsIn: (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...9, using: &random) })
                realm.add(reading)
            }
        }
        // Counted before any key is read (one pass over the rows, where they decide it), then
        // compared with the objects the keys give.
        let counted = realm.objects(Measured.self).filter(predicate).count
        let results = realm.objects(Measured.self).filter(predicate)
        let objects = Array(results)
        #expect(counted == objects.count, "seed \(seed)")
        func close(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
        }
        let values = objects.map(\.value)
        #expect(results.sum(ofProperty: "value") as Decimal == values.reduce(Decimal(0)) { $0 + Decimal($1) }, "seed \(seed)")
        #expect(results.min(ofProperty: "value") as Int? == values.min(), "seed \(seed)")
        #expect(results.max(ofProperty: "value") as Int? == values.max(), "seed \(seed)")
        let levels = objects.map(\.level)
        // Doubles add up the same way on every path (`DoubleSum`), to the bit.
        #expect((results.sum(ofProperty: "level") as Double).bitPattern == levels.laneSum().bitPattern, "seed \(seed)")
        #expect((results.average(ofProperty: "level") as Double?)?.bitPattern == (levels.isEmpty ? nil : levels.laneSum() / Double(levels.count))?.bitPattern, "seed \(seed)")
        #expect(close(results.sum(ofProperty: "level") as Double, levels.reduce(0, +)), "seed \(seed)")
        let maybes = objects.compactMap(\.maybe)
        #expect(results.sum(ofProperty: "maybe") as Int == maybes.reduce(0, +), "seed \(seed)")
        #expect(results.average(ofProperty: "maybe") as Double? == (maybes.isEmpty ? nil : Double(maybes.reduce(0, +)) / Double(maybes.count)), "seed \(seed)")
        #expect(results.min(ofProperty: "maybe") as Int? == maybes.min(), "seed \(seed)")
        let ratios = objects.compactMap(\.ratio)
        #expect((results.sum(ofProperty: "ratio") as Double).bitPattern == ratios.laneSum().bitPattern, "seed \(seed)")
        #expect(close(results.max(ofProperty: "ratio") as Double?, ratios.max()), "seed \(seed)")
    }

    @Test("a sorted, limited or list-based filter still sums only its own objects")
    func otherResults() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "filtered-aggregates-steps", objectTypes: [Measured.self]))
        try realm.write {
            for value in 1...100 { realm.create(Measured.self, value: ["value": value, "name": value % 2 == 0 ? "even" : "odd"]) }
        }
        let evens = realm.objects(Measured.self).filter("name == 'even'")
        #expect(evens.sum(ofProperty: "value") as Int == 2550)
        #expect(evens.filter("TRUEPREDICATE SORT(value DESC) LIMIT(2)").sum(ofProperty: "value") as Int == 198)
        #expect(evens.sorted(byKeyPath: "value").filter("value < 10").sum(ofProperty: "value") as Int == 20)
    }

    @Test("counts and sums follow every add and delete inside a write transaction, and go back when it is cancelled")
    func countsInsideWrites() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "counts-inside-writes", objectTypes: [Measured.self]))
        func add(_ value: Int) {
            let reading = Measured()
            reading.value = value
            reading.name = value.isMultiple(of: 2) ? "a\(value)" : "b\(value)"
            realm.add(reading)
        }
        try realm.write { for value in 0..<500 { add(value) } }
        let all = realm.objects(Measured.self)
        #expect(all.count == 500)
        #expect(realm.objects(Measured.self).filter("value < 100").count == 100)
        #expect(realm.objects(Measured.self).sum(ofProperty: "value") as Int == 124_750)
        realm.beginWrite()
        for value in 500..<520 {
            add(value)
            #expect(realm.objects(Measured.self).count == value + 1)
            #expect(all.count == value + 1)
            #expect(realm.objects(Measured.self).filter("value >= 500").count == value - 499)
            #expect(realm.objects(Measured.self).filter("name BEGINSWITH 'a'").sorted(byKeyPath: "value").count == 250 + (value - 498) / 2)
        }
        realm.delete(realm.objects(Measured.self).filter("value < 100"))
        #expect(all.count == 420)
        #expect(realm.objects(Measured.self).filter("value < 200").count == 100)
        #expect(realm.objects(Measured.self).filter("value < 200").sum(ofProperty: "value") as Int == (100..<200).reduce(0, +))
        realm.cancelWrite()
        #expect(all.count == 500)
        #expect(realm.objects(Measured.self).count == 500)
        #expect(realm.objects(Measured.self).filter("value >= 500").count == 0)
        #expect(realm.objects(Measured.self).filter("value < 100").sum(ofProperty: "value") as Int == 4950)
    }

    @Test("min and max of a Double read from the packed columns leave NaN out and order zeros as the row path does", arguments: [
        [2, -0.0, 0.0, .nan, 5, -.infinity],
        [0.0, -0.0, 1, -3],
        [-0.0, 0.0],
        [0.0, -0.0],
        [.nan, 4, .nan],
        [.nan, .nan],
        [Double](),
    ])
    func doubleExtremes(levels: [Double]) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "double-extremes-\(levels.map(\.bitPattern))", objectTypes: [Measured.self]))
        try realm.write {
            for (index, level) in levels.enumerated() { realm.create(Measured.self, value: ["value": index, "level": level]) }
        }
        // Every object from the packed columns; the same objects through a filter the columns
        // cannot test (a Double comparison), read row by row.
        let columns = realm.objects(Measured.self)
        let rows = realm.objects(Measured.self).filter("level != 100")
        for better in [{ (results: Results<Measured>) in results.min(ofProperty: "level") as Double? },
                       { (results: Results<Measured>) in results.max(ofProperty: "level") as Double? }] {
            #expect(better(columns)?.bitPattern == better(rows)?.bitPattern, "\(levels)")
        }
        let counted = levels.filter { !$0.isNaN }
        #expect((columns.min(ofProperty: "level") as Double?)?.bitPattern == counted.min().map { min in counted.first { $0 == min }!.bitPattern })
        #expect((columns.max(ofProperty: "level") as Double?)?.bitPattern == counted.max().map { max in counted.first { $0 == max }!.bitPattern })
    }
}
