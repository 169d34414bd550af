import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

final class EdgeInt: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var plain: Int
    @Persisted(indexed: true) var indexedOptional: Int?
    @Persisted var plainOptional: Int?
}

final class EdgeDate: Object {
    @Persisted(indexed: true) var indexed: Date
    @Persisted var plain: Date
}

final class EdgeDouble: Object {
    @Persisted var double: Double
    @Persisted var float: Float?
}

final class EdgeString: Object {
    @Persisted(indexed: true) var indexed: String
    @Persisted var plain: String
}

/// Its property `key` is also a regression test: `Object` once kept a field `_key`, the name
/// of this property's wrapper storage, and such a model did not compile.
final class StringKeyed: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var note: String
}

/// Every comparison over values at the edges of each type's range, answered through an index
/// and by a scan, and checked against Swift: the two paths must agree everywhere (issue 26,
/// items 3 to 6).
@Suite("Queries over edge values: index and scan agree")
struct EdgeValueQueryTests {
    static let integers: [Int] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
    static let operators = ["==", "!=", "<", "<=", ">", ">="]

    static func holds(_ value: Int, _ op: String, _ other: Int) -> Bool {
        switch op {
        case "==": value == other
        case "!=": value != other
        case "<": value < other
        case "<=": value <= other
        case ">": value > other
        default: value >= other
        }
    }

    @Test("Int.min and Int.max through a primary key, an index and a scan", arguments: RealmKind.allCases)
    func integers(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeInt.self]))
        try realm.write {
            for value in Self.integers {
                realm.add(EdgeInt(value: ["id": value, "plain": value, "indexedOptional": value, "plainOptional": value]))
            }
            realm.add(EdgeInt(value: ["id": 42, "plain": 42]))  // nil in both optional columns
        }
        let objects = realm.objects(EdgeInt.self)
        let stored = Self.integers + [42]
        for op in Self.operators {
            for argument in Self.integers {
                let expected = Set(stored.filter { Self.holds($0, op, argument) })
                for column in ["id", "plain"] {
                    let found = Set(objects.filter("\(column) \(op) %@", argument).map(\.id))
                    #expect(found == expected, "\(column) \(op) \(argument)")
                }
                let expectedOptional = Set(Self.integers.filter { Self.holds($0, op, argument) } + (op == "!=" ? [42] : []))
                for column in ["indexedOptional", "plainOptional"] {
                    let found = Set(objects.filter("\(column) \(op) %@", argument).map(\.id))
                    #expect(found == expectedOptional, "\(column) \(op) \(argument)")
                }
            }
        }
        for column in ["id", "plain", "indexedOptional", "plainOptional"] {
            let present = column.hasSuffix("Optional") ? Self.integers.count : stored.count
            #expect(objects.filter("\(column) BETWEEN {%@, %@}", Int.min, Int.max).count == present, "\(column)")
            #expect(objects.filter("\(column) BETWEEN {%@, %@}", Int.max, Int.max).count == 1, "\(column)")
            #expect(objects.filter("\(column) BETWEEN {%@, %@}", Int.min, Int.min).count == 1, "\(column)")
            #expect(objects.filter("\(column) == -9223372036854775808").count == 1, "\(column)")
            #expect(objects.filter("\(column) == 9223372036854775807").count == 1, "\(column)")
            #expect(objects.filter("\(column) IN {-9223372036854775808, 9223372036854775807}").count == 2, "\(column)")
        }
    }

    /// Dates past the stored range are clamped, NaN is 1970 (the rule in `Docs/Limits.md`).
    static let unstorableDates: [(given: Date, stored: Date)] = [
        (Date(timeIntervalSinceReferenceDate: 1e20), Date(timeIntervalSince1970: 0x1p63)),
        (Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSince1970: 0x1p63)),
        (Date(timeIntervalSinceReferenceDate: -1e20), Date(timeIntervalSince1970: -0x1p63)),
        (Date(timeIntervalSinceReferenceDate: -.infinity), Date(timeIntervalSince1970: -0x1p63)),
        (Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSince1970: 0)),
    ]

    @Test("a Date outside the stored range is clamped on write and as a query argument, never a trap", arguments: RealmKind.allCases)
    func unstorableDates(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeDate.self]))
        try realm.write {
            for (given, _) in Self.unstorableDates { realm.add(EdgeDate(value: ["indexed": given, "plain": given])) }
        }
        let stored = realm.objects(EdgeDate.self).map(\.indexed)
        #expect(stored == Self.unstorableDates.map(\.stored))
        #expect(realm.objects(EdgeDate.self).map(\.plain) == Self.unstorableDates.map(\.stored))
        for column in ["indexed", "plain"] {
            for (given, stored) in Self.unstorableDates {
                let count = Self.unstorableDates.filter { $0.stored == stored }.count
                #expect(realm.objects(EdgeDate.self).filter("\(column) == %@", given).count == count, "\(column) == \(given)")
            }
            #expect(realm.objects(EdgeDate.self).filter("\(column) >= %@", Date.distantFuture).count == 2, "\(column)")
            #expect(realm.objects(EdgeDate.self).filter("\(column) <= %@", Date.distantPast).count == 2, "\(column)")
            #expect(realm.objects(EdgeDate.self).filter("\(column) < %@", Date(timeIntervalSinceReferenceDate: -.infinity)).count == 0, "\(column)")
            #expect(realm.objects(EdgeDate.self).filter("\(column) BETWEEN {%@, %@}", Date(timeIntervalSinceReferenceDate: -.infinity), Date(timeIntervalSinceReferenceDate: .infinity)).count == 5, "\(column)")
        }
    }

    @Test("NaN sorts first, equals itself and is below every number in comparisons; aggregates leave it out", arguments: RealmKind.allCases)
    func notANumber(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeDouble.self]))
        let values: [Double] = [1, .nan, -.infinity, -0.0, .infinity, 0, .nan, -1]
        try realm.write {
            for value in values { realm.add(EdgeDouble(value: ["double": value, "float": Float(value)])) }
        }
        let objects = realm.objects(EdgeDouble.self)
        for column in ["double", "float"] {
            let sorted = objects.sorted(byKeyPath: column).map(\.double)
            #expect(sorted.prefix(2).allSatisfy { $0.isNaN }, "\(column): \(sorted)")
            #expect(Array(sorted.dropFirst(2)) == [-.infinity, -1, -0.0, 0, 1, .infinity], "\(column): \(sorted)")
            let descending = objects.sorted(byKeyPath: column, ascending: false).map(\.double)
            #expect(descending.suffix(2).allSatisfy { $0.isNaN }, "\(column): \(descending)")
            #expect(objects.filter("\(column) == %@", Double.nan).count == 2, "\(column)")
            #expect(objects.filter("\(column) != %@", Double.nan).count == 6, "\(column)")
            #expect(objects.filter("\(column) < %@", -Double.infinity).count == 2, "\(column)")
            #expect(objects.filter("\(column) < 0").count == 4, "\(column)")
            #expect(objects.filter("\(column) >= %@", -Double.infinity).count == 6, "\(column)")
            #expect(objects.filter("\(column) == 0").count == 2, "\(column): -0.0 == 0")
            #expect(objects.filter("\(column) BETWEEN {%@, 0}", Double.nan).count == 6, "\(column)")
        }
        let (smallest, largest): (Double?, Double?) = (objects.min(ofProperty: "double"), objects.max(ofProperty: "double"))
        #expect(smallest == -.infinity)
        #expect(largest == .infinity)
        let (smallestFloat, largestFloat): (Float?, Float?) = (objects.min(ofProperty: "float"), objects.max(ofProperty: "float"))
        #expect(smallestFloat == -.infinity)
        #expect(largestFloat == .infinity)
        // Whatever row comes first: the same answers with NaN last in the table.
        try realm.write { realm.delete(objects.filter("double == %@", Double.nan)) }
        try realm.write { realm.add(EdgeDouble(value: ["double": Double.nan, "float": Float.nan])) }
        let (smallestAfter, largestAfter): (Double?, Double?) = (objects.min(ofProperty: "double"), objects.max(ofProperty: "double"))
        #expect(smallestAfter == -.infinity)
        #expect(largestAfter == .infinity)
    }

    @Test("lists, sets and maps of values sort NaN first too, managed or not (Swift's < alone is no order with NaN)", arguments: RealmKind.allCases)
    func notANumberInValueCollections(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Gauge.self]))
        let values: [Double] = [3, .nan, -1, 7, .nan, 0]
        let gauge = Gauge()
        gauge.scores.append(objectsIn: values)
        gauge.optionalScores.append(objectsIn: values.map(Optional.some) + [nil])
        gauge.scoreSet.insert(objectsIn: values)
        for (index, value) in values.enumerated() { gauge.scoreMap["k\(index)"] = value }
        func text(_ numbers: [Double?]) -> String { numbers.map { $0.map { "\($0)" } ?? "nil" }.joined(separator: " ") }
        for gauge in [gauge, try realm.write { realm.create(Gauge.self, value: gauge) }] {
            #expect(text(gauge.scores.sorted()) == "nan nan -1.0 0.0 3.0 7.0")
            #expect(text(gauge.scores.sorted(ascending: false)) == "7.0 3.0 0.0 -1.0 nan nan")
            #expect(text(gauge.optionalScores.sorted()) == "nil nan nan -1.0 0.0 3.0 7.0")
            #expect(text(gauge.scoreSet.sorted(ascending: true)).hasSuffix("-1.0 0.0 3.0 7.0"))
            #expect(text(gauge.scoreMap.sorted()) == "nan nan -1.0 0.0 3.0 7.0")
        }
    }

    @Test("a sum of integers past Int64 is exact as Decimal or Double, in @sum too, and never wraps", arguments: RealmKind.allCases)
    func sumPastInt64(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeInt.self]))
        try realm.write {
            realm.add(EdgeInt(value: ["id": 1, "plain": Int.max, "plainOptional": Int.max]))
            realm.add(EdgeInt(value: ["id": 2, "plain": Int.max, "plainOptional": Int.max]))
        }
        let objects = realm.objects(EdgeInt.self)
        // The whole class (summed inside the engine) and a filtered result (summed from values).
        for results in [objects, objects.filter("id > 0")] {
            for column in ["plain", "plainOptional"] {
                let decimal: Decimal = results.sum(ofProperty: column)
                #expect(decimal == Decimal(string: "18446744073709551614"), "\(column)")
                let double: Double = results.sum(ofProperty: column)
                #expect(double == 0x1p64, "\(column)")
                let average: Double? = results.average(ofProperty: column)
                #expect(average == 0x1p63, "\(column)")
            }
        }
        let small: Int = objects.filter("id == 1").sum(ofProperty: "plain")
        #expect(small == Int.max)
        let listDirectory = TemporaryDirectory()
        let lists = try Realm(configuration: kind.configuration(listDirectory, objectTypes: [EveryType.self, Dog.self, Person.self]))
        try lists.write {
            let wide = EveryType()
            wide.ints.append(objectsIn: [Int.max, Int.max])
            lists.add(wide)
        }
        #expect(lists.objects(EveryType.self).filter("ints.@sum > %@", Int.max).count == 1)
        #expect(lists.objects(EveryType.self).filter("ints.@sum == %@", Decimal(string: "18446744073709551614")!).count == 1)
        #expect(lists.objects(EveryType.self).filter("ints.@avg == %@", Int.max).count == 1)
    }

    @Test("a sum that Int cannot hold stops with a message naming the property and the sum")
    func sumOverflowStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "sum-overflow", objectTypes: [EdgeInt.self]))
            try realm.write {
                realm.add(EdgeInt(value: ["id": 1, "plain": Int.max]))
                realm.add(EdgeInt(value: ["id": 2, "plain": Int.max]))
            }
            let _: Int = realm.objects(EdgeInt.self).sum(ofProperty: "plain")
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("the sum of 'EdgeInt.plain' is 18446744073709551614"), "\(printed)")
    }

    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    /// Pairs Swift's `==` calls equal, short and sharing an index key's eight-byte prefix.
    static let strings = [composed, decomposed, "xxxxxxxx" + composed, "xxxxxxxx" + decomposed, "", "cafe", "CAF\u{C9}"]

    @Test("strings compare by their bytes everywhere: scan, index, sort, distinct, BEGINSWITH, [c] and [d]", arguments: RealmKind.allCases)
    func stringsByBytes(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeString.self]))
        try realm.write {
            for text in Self.strings { realm.add(EdgeString(value: ["indexed": text, "plain": text])) }
        }
        let objects = realm.objects(EdgeString.self)
        for column in ["indexed", "plain"] {
            for text in Self.strings {
                let found = objects.filter("\(column) == %@", text).map(\.plain)
                #expect(found.map { Array($0.utf8) } == [Array(text.utf8)], "\(column) == \(Array(text.unicodeScalars))")
                #expect(objects.filter("\(column) IN %@", [text]).count == 1, "\(column)")
                #expect(objects.filter("\(column) != %@", text).count == Self.strings.count - 1, "\(column)")
            }
            let sorted = objects.sorted(byKeyPath: column).map { Array($0.plain.utf8) }
            #expect(sorted == Self.strings.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }, "\(column)")
            #expect(objects.distinct(by: [column]).count == Self.strings.count, "\(column)")
            #expect(objects.filter("\(column) BEGINSWITH %@", Self.composed).count == 1, "\(column)")
            #expect(objects.filter("\(column) CONTAINS %@", Self.decomposed).count == 2, "\(column)")
            #expect(objects.filter("\(column) ==[c] %@", Self.composed).count == 2, "\(column): café and CAFÉ")
            #expect(objects.filter("\(column) ==[cd] 'cafe'").count == 4, "\(column): every short spelling")
            #expect(objects.filter("\(column) > %@", Self.composed).map(\.plain).allSatisfy { QueryScalar.compareBytes($0, Self.composed) > 0 }, "\(column)")
        }
        // Changing a value to another spelling of it is a change, stored and found.
        try realm.write { objects.filter("plain == %@", Self.composed).first!.indexed = Self.decomposed }
        #expect(objects.filter("indexed == %@", Self.decomposed).count == 2)
        #expect(objects.filter("indexed == %@", Self.composed).count == 0)
    }

    @Test("a String primary key tells the two spellings apart, as Realm does", arguments: RealmKind.allCases)
    func stringPrimaryKey(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [StringKeyed.self]))
        try realm.write {
            realm.add(StringKeyed(value: ["key": Self.composed, "note": "composed"]))
            realm.add(StringKeyed(value: ["key": Self.decomposed, "note": "decomposed"]))
        }
        #expect(realm.objects(StringKeyed.self).count == 2)
        #expect(realm.object(ofType: StringKeyed.self, forPrimaryKey: Self.composed)?.note == "composed")
        #expect(realm.object(ofType: StringKeyed.self, forPrimaryKey: Self.decomposed)?.note == "decomposed")
        try realm.write { realm.add(StringKeyed(value: ["key": Self.decomposed, "note": "again"]), update: .modified) }
        #expect(realm.object(ofType: StringKeyed.self, forPrimaryKey: Self.decomposed)?.note == "again")
        #expect(realm.object(ofType: StringKeyed.self, forPrimaryKey: Self.composed)?.note == "composed")
    }

    @Test("CONTAINS of a long needle takes linear time: ASCII and not, with and without [c]", arguments: RealmKind.allCases)
    func longNeedles(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EdgeString.self]))
        // The needle's start repeats all through the text: a search that compares the needle
        // again at every position does 50,000 x 100,000 steps (seconds), a linear one 150,000.
        let ascii = String(repeating: "a", count: 1_000_000)
        let wide = String(repeating: "\u{E9}", count: 100_000)
        try realm.write {
            realm.add(EdgeString(value: ["indexed": "1", "plain": ascii]))
            realm.add(EdgeString(value: ["indexed": "2", "plain": wide]))
            realm.add(EdgeString(value: ["indexed": "3", "plain": String(repeating: "a", count: 50_000) + "b" + ascii.prefix(50_000)]))
        }
        let objects = realm.objects(EdgeString.self)
        let missing = String(repeating: "a", count: 50_000) + "c"
        let present = String(repeating: "a", count: 50_000) + "b"
        #expect(objects.filter("plain CONTAINS %@", missing).count == 0)
        #expect(objects.filter("plain CONTAINS[c] %@", missing.uppercased()).count == 0)
        #expect(objects.filter("plain CONTAINS %@", present).map(\.indexed) == ["3"])
        #expect(objects.filter("plain CONTAINS[c] %@", present.uppercased()).map(\.indexed) == ["3"])
        let wideMissing = String(repeating: "\u{E9}", count: 50_000) + "e"
        #expect(objects.filter("plain CONTAINS %@", wideMissing).count == 0)
        #expect(objects.filter("plain CONTAINS[c] %@", wideMissing).count == 0)
        #expect(objects.filter("plain CONTAINS[c] %@", String(repeating: "\u{C9}", count: 50_000)).map(\.indexed) == ["2"])
        // Through the evaluator rather than the stored row's test (a constant on the left).
        #expect(objects.filter("plain CONTAINS %@ AND %@ != plain", missing, "").count == 0)
    }
}
