import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

final class TaggedValues: Object {
    @Persisted var tags: MutableSet<String>
    @Persisted var words: List<String>
    @Persisted var scores: List<Int?>
    @Persisted var readings: List<Double>
    @Persisted var sizes: List<Size>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var dogs: List<Dog>
}

/// RealmSwift's predicate queries on collections of values (`filter("self > 3")`,
/// `index(matching:)`, `distinct()`), managed and unmanaged: the same answers either way, and
/// the same comparisons as a query on objects.
@Suite("Queries on collections of values")
struct ValueQueryTests {
    /// The model with its collections filled, unmanaged or added to a fresh realm.
    private func filled(managed: Bool, in directory: TemporaryDirectory) throws -> TaggedValues {
        let object = TaggedValues()
        object.words.append(objectsIn: ["apple", "Avocado", "banana", "caf\u{E9}", "cafe\u{301}", "apple", "Apricot"])
        object.tags.insert(objectsIn: ["red", "Ripe", "green"])
        object.scores.append(objectsIn: [3, nil, 10, 7, nil, 3])
        object.readings.append(objectsIn: [1.5, .nan, -0.0, 0.0, .nan, 2])
        object.sizes.append(objectsIn: [.large, .small, .large, .medium])
        object.mixed.append(objectsIn: [.int(1), .string("one"), .double(1), .none, .bool(true)])
        guard managed else { return object }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [TaggedValues.self, Dog.self, Person.self]))
        try realm.write { realm.add(object) }
        return object
    }

    @Test("filter with a predicate string naming the element self", arguments: [false, true])
    func filterStrings(managed: Bool) throws {
        let directory = TemporaryDirectory()
        let object = try filled(managed: managed, in: directory)
        let aWords: [String] = object.words.filter("self BEGINSWITH[c] %@", "a")
        #expect(aWords == ["apple", "Avocado", "apple", "Apricot"])
        #expect(object.words.filter("self BEGINSWITH 'a'") == ["apple", "apple"])
        #expect(object.words.filter("SELF == 'apple'").count == 2)
        // Strings compare by their UTF-8 bytes, as in queries on objects.
        #expect(object.words.filter("self == %@", "caf\u{E9}") == ["caf\u{E9}"])
        #expect(object.words.filter("self IN {'banana', 'cherry'}") == ["banana"])
        #expect(object.words.filter("self LIKE '*an*'") == ["banana"])
        #expect(object.words.filter("NOT self CONTAINS 'p'") == ["Avocado", "banana", "caf\u{E9}", "cafe\u{301}"])
        #expect(object.tags.filter("self ==[c] 'ripe' OR self ENDSWITH 'en'").sorted() == ["Ripe", "green"])
        #expect(object.words.filter("TRUEPREDICATE").count == 7)
        #expect(object.words.filter("FALSEPREDICATE").isEmpty)
    }

    @Test("filter compares numbers, nils, enums and mixed values as queries on objects do", arguments: [false, true])
    func filterValues(managed: Bool) throws {
        let directory = TemporaryDirectory()
        let object = try filled(managed: managed, in: directory)
        #expect(object.scores.filter("self > 3") == [10, 7])
        #expect(object.scores.filter("self > 3.5") == [10, 7])
        #expect(object.scores.filter("self == nil").count == 2)
        #expect(object.scores.filter("self != nil") == [3, 10, 7, 3])
        #expect(object.scores.filter("self BETWEEN {3, 7}") == [3, 7, 3])
        #expect(object.readings.filter("self >= 0") == [1.5, -0.0, 0.0, 2])
        #expect(object.readings.filter("self == %@", Double.nan).count == 2)
        #expect(object.sizes.filter("self == %@", Size.large) == [.large, .large])
        #expect(object.sizes.filter("self < 2") == [.small, .medium])
        #expect(object.mixed.filter("self == 1").count == 2)
        #expect(object.mixed.filter("self == nil") == [.none])
        #expect(object.mixed.filter("self.@type == 'string'") == [.string("one")])
    }

    @Test("where blocks take the element as $0", arguments: [false, true])
    func whereBlocks(managed: Bool) throws {
        let directory = TemporaryDirectory()
        let object = try filled(managed: managed, in: directory)
        let aWords: [String] = object.words.where { $0.starts(with: "a", options: .caseInsensitive) }
        #expect(aWords == ["apple", "Avocado", "apple", "Apricot"])
        #expect(object.words.where { $0 == "apple" || $0.contains("nan") } == ["apple", "banana", "apple"])
        #expect(object.scores.where { $0 > 3 } == [10, 7])
        #expect(object.scores.where { $0 == nil }.count == 2)
        #expect(object.scores.where { $0.in([3, 7]) } == [3, 7, 3])
        #expect(object.sizes.where { $0 == .large } == [.large, .large])
        #expect(object.tags.where { !($0 == "red") }.sorted() == ["Ripe", "green"])
    }

    @Test("index(matching:) gives the first match's position", arguments: [false, true])
    func indexMatching(managed: Bool) throws {
        let directory = TemporaryDirectory()
        let object = try filled(managed: managed, in: directory)
        #expect(object.scores.index(matching: "self > %@", 5) == 2)
        #expect(object.scores.index(matching: "self == nil") == 1)
        #expect(object.words.index(matching: "self ENDSWITH 'cot'") == 6)
        #expect(object.words.index(matching: "self == 'cherry'") == nil)
    }

    @Test("distinct keeps each value's first place, values told apart as == in a query tells them", arguments: [false, true])
    func distinctValues(managed: Bool) throws {
        let directory = TemporaryDirectory()
        let object = try filled(managed: managed, in: directory)
        #expect(object.words.distinct() == ["apple", "Avocado", "banana", "caf\u{E9}", "cafe\u{301}", "Apricot"])
        #expect(object.scores.distinct() == [3, nil, 10, 7])
        let readings = object.readings.distinct()
        #expect(readings.count == 4)
        #expect(readings[0] == 1.5 && readings[1].isNaN && readings[2] == 0 && readings[3] == 2)
        #expect(readings[2].sign == .minus)
        #expect(object.sizes.distinct() == [.large, .small, .medium])
        // Numbers of any kind are one value when equal, as `self == 1` finds both.
        #expect(object.mixed.distinct() == [.int(1), .string("one"), .none, .bool(true)])
    }

    @Test("DISTINCT on an AnyRealmValue property takes equal numbers of any kind as one value, as == does")
    func distinctMixedNumbers() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [IndexedSetting.self]))
        let values: [AnyRealmValue] = [.int(5), .double(5), .decimal128(5), .string("5"), .none, .double(-0.0), .int(0), .double(.nan), .decimal128(.nan), .double(5.5)]
        try realm.write {
            for value in values { realm.create(IndexedSetting.self, value: ["value": value]) }
        }
        let distinct = realm.objects(IndexedSetting.self).distinct(by: ["value"]).map(\.value)
        #expect(distinct.count == 6)
        #expect(distinct.first == .int(5))
        #expect(realm.objects(IndexedSetting.self).filter("value == 5").count == 3)
        #expect(realm.objects(IndexedSetting.self).filter("value == 0").count == 2)
    }

    @Test("a collection of objects keeps RealmCollection's filter, which returns live Results; its distinct() is by stored object")
    func objectsKeepResults() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [TaggedValues.self, Dog.self, Person.self]))
        let object = TaggedValues()
        let rex = Dog()
        rex.name = "Rex"
        let fido = Dog()
        fido.name = "Fido"
        object.dogs.append(objectsIn: [rex, fido, rex])
        try realm.write { realm.add(object) }
        let live: Results<Dog> = object.dogs.filter("name BEGINSWITH 'R'")
        #expect(live.count == 2)
        try realm.write { fido.name = "Rover" }
        #expect(live.count == 3)
        let snapshot: [Dog] = object.dogs.filter("name == 'Rex'")
        #expect(snapshot.count == 2)
        #expect(object.dogs.distinct().map(\.name) == ["Rex", "Rover"])
        #expect(object.dogs.index(matching: "name == 'Rover'") == 1)
        let liveWhere: Results<Dog> = object.dogs.where { $0.name == "Rex" }
        let snapshotWhere: [Dog] = object.dogs.where { $0.name == "Rex" }
        #expect(liveWhere.count == 2 && snapshotWhere.count == 2)
    }

    @Test("a predicate that does not fit the elements throws invalidQuery, naming the problem")
    func badPredicates() throws {
        let object = TaggedValues()
        object.words.append(objectsIn: ["a", "b"])
        for predicate in ["self > 3", "name == 'a'", "self == 'a' SORT(self ASC)", "self.@count > 1"] {
            let error = #expect(throws: RealmError.self, "\(predicate)") { try object.words.filter(RealmPredicate(predicate)) }
            #expect(error?.code == .invalidQuery, "\(predicate)")
        }
        let unknown = #expect(throws: RealmError.self) { try object.words.filter(RealmPredicate("name == 'a'")) }
        #expect(unknown?.message.contains("has no property 'name' (its properties: self)") == true, "\(unknown?.message ?? "")")
    }
}
