import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

final class Gauge: Object {
    @Persisted var level: Double
    @Persisted var ratio: Float
    @Persisted var maybe: Double?
    @Persisted var amount: Decimal
    @Persisted var scores: List<Double>
    @Persisted var optionalScores: List<Double?>
    @Persisted var scoreSet: MutableSet<Double>
    @Persisted var scoreMap: Map<String, Double>
    @Persisted var gauges: List<Gauge>
}

/// NaN in aggregates: left out of `min`, `max`, `sum` and `average` (and `@min`, `@max`,
/// `@sum`, `@avg` in queries) as Realm leaves it out (`valid_for_agg` in Realm's engine), on
/// every path that computes them. Sorting and comparing NaN are `EdgeValueQueryTests`'.
@Suite("Aggregates leave NaN out")
struct NaNAggregateTests {
    static let numbers: [Double] = [2, .nan, -1, 5, .nan]

    static func gauge(_ level: Double) -> Gauge {
        Gauge(value: ["level": level, "ratio": Float(level), "maybe": level, "amount": level.isNaN ? Decimal.nan : Decimal(level)])
    }

    @Test("min, max, sum and average of results, from the packed columns and from the rows, and of an unmanaged list", arguments: RealmKind.allCases)
    func results(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Gauge.self]))
        try realm.write { for number in Self.numbers { realm.add(Self.gauge(number)) } }
        let all = realm.objects(Gauge.self)
        // A filter on a Double, which the packed columns do not test: the rows are read.
        let filtered = all.filter("level != 100")
        let unmanaged = Gauge()
        unmanaged.gauges.append(objectsIn: Self.numbers.map(Self.gauge))
        for property in ["level", "ratio", "maybe"] {
            let paths: [(String, () -> (Double?, Double?, Double, Double?))] = [
                ("all", { (all.min(ofProperty: property), all.max(ofProperty: property), all.sum(ofProperty: property), all.average(ofProperty: property)) }),
                ("filtered", { (filtered.min(ofProperty: property), filtered.max(ofProperty: property), filtered.sum(ofProperty: property), filtered.average(ofProperty: property)) }),
                ("unmanaged", { (unmanaged.gauges.min(ofProperty: property), unmanaged.gauges.max(ofProperty: property),
                                 unmanaged.gauges.sum(ofProperty: property), unmanaged.gauges.average(ofProperty: property)) }),
            ]
            for (path, aggregates) in paths {
                let (min, max, sum, average) = aggregates()
                #expect(min == -1 && max == 5 && sum == 6 && average == 2, "\(path) \(property): \(String(describing: (min, max, sum, average)))")
            }
        }
        #expect(all.sum(ofProperty: "amount") as Decimal == 6)
        #expect(all.average(ofProperty: "amount") as Decimal? == 2)
        #expect(all.min(ofProperty: "amount") as Decimal? == -1)
        // Only NaNs: no minimum, maximum or average, and a sum of zero.
        try realm.write { realm.delete(all.filter("level != %@", Double.nan)) }
        #expect(all.count == 2)
        for results in [all, filtered] {
            #expect(results.min(ofProperty: "level") as Double? == nil)
            #expect(results.max(ofProperty: "ratio") as Float? == nil)
            #expect(results.sum(ofProperty: "level") as Double == 0)
            #expect(results.average(ofProperty: "maybe") as Double? == nil)
        }
    }

    @Test("lists, sets and maps of values, and @min, @max, @sum and @avg in a query, with @count still counting every element", arguments: RealmKind.allCases)
    func collections(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Gauge.self]))
        let gauge = Gauge()
        gauge.scores.append(objectsIn: Self.numbers)
        gauge.optionalScores.append(objectsIn: Self.numbers + [nil])
        gauge.scoreSet.insert(objectsIn: Self.numbers)
        for (index, number) in Self.numbers.enumerated() { gauge.scoreMap["k\(index)"] = number }
        let onlyNaN = Gauge()
        onlyNaN.scores.append(.nan)
        onlyNaN.scoreMap["k"] = .nan
        for (state, gauge, onlyNaN) in [("unmanaged", gauge, onlyNaN), ("managed", try realm.write { realm.create(Gauge.self, value: gauge) }, try realm.write { realm.create(Gauge.self, value: onlyNaN) })] {
            #expect(gauge.scores.min() == -1 && gauge.scores.max() == 5, "\(state)")
            #expect(gauge.scores.sum() == 6 && gauge.scores.average() == 2.0, "\(state)")
            #expect(gauge.optionalScores.min() == -1 && gauge.optionalScores.max() == 5, "\(state)")
            #expect(gauge.optionalScores.sum() == 6 && gauge.optionalScores.average() == 2.0, "\(state)")
            #expect(gauge.scoreSet.min() == -1 && gauge.scoreSet.max() == 5 && gauge.scoreSet.sum() == 6, "\(state)")
            #expect(gauge.scoreMap.min() == -1 && gauge.scoreMap.max() == 5, "\(state)")
            #expect(gauge.scoreMap.sum() == 6 && gauge.scoreMap.average() == 2.0, "\(state)")
            #expect(onlyNaN.scores.min() == nil && onlyNaN.scores.max() == nil, "\(state)")
            #expect(onlyNaN.scores.sum() == 0 && onlyNaN.scores.average() as Double? == nil, "\(state)")
            #expect(onlyNaN.scoreMap.min() == nil && onlyNaN.scoreMap.average() as Double? == nil, "\(state)")
        }
        let gauges = realm.objects(Gauge.self)
        #expect(gauges.filter("scores.@min == -1 AND scores.@max == 5").count == 1)
        #expect(gauges.filter("scores.@sum == 6 AND scores.@avg == 2").count == 1)
        #expect(gauges.filter("scores.@count == 5").count == 1)
        #expect(gauges.filter("scoreMap.@min == -1 AND scoreMap.@avg == 2").count == 1)
        // Of NaNs alone: no minimum or mean (null), a sum of zero.
        #expect(gauges.filter("scores.@count == 1 AND scores.@min == nil AND scores.@avg == nil AND scores.@sum == 0").count == 1)
    }
}
