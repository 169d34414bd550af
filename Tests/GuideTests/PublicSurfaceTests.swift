import AsyncRealm
import Foundation
import Testing

// This target imports AsyncRealm as an app does (no @testable), so what compiles here is what
// an app can call: RealmSwift's spellings that once compiled only inside the module.

final class SurfacePet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var friends: List<SurfacePet>
    @Persisted var circle: MutableSet<SurfacePet>
    @Persisted(originProperty: "friends") var fans: LinkingObjects<SurfacePet>
}

@Suite("RealmSwift's spellings, called from outside the module")
struct PublicSurfaceTests {
    /// An in-memory realm named `identifier` with Rex (5), Ace (9) and Bo (1), all three Rex's
    /// friends; `more` runs in the same write with them, in that order.
    static func realmOfPets(_ identifier: String, _ more: ([SurfacePet]) -> Void = { _ in }) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: [SurfacePet.self]))
        try realm.write {
            let pets = [("Rex", 5), ("Ace", 9), ("Bo", 1)].map { realm.create(SurfacePet.self, value: ["name": $0.0, "age": $0.1]) }
            pets[0].friends.append(objectsIn: pets)
            more(pets)
        }
        return realm
    }

    @Test("a list or set of values queried from outside gives its values: the queries of lists of objects are not found on it")
    func valueCollectionQueries() throws {
        // Through an internal protocol, `where` and `filter(_: RealmPredicate)` of lists of
        // objects were found here on a `List<String>` too, and built a `Results<String>`.
        let words = List<String>()
        words.append(objectsIn: ["apple", "banana", "avocado"])
        let viaWhere = words.where { $0.starts(with: "a") }
        let viaPredicate = try words.filter(RealmPredicate("self CONTAINS 'an'"))
        let counts = MutableSet<Int>()
        counts.insert(objectsIn: [1, 5, 9])
        let viaSetWhere = counts.where { $0 > 3 }
        #expect(type(of: viaWhere) == [String].self && type(of: viaPredicate) == [String].self && type(of: viaSetWhere) == [Int].self)
        #expect(viaWhere == ["apple", "avocado"])
        #expect(viaPredicate == ["banana"])
        #expect(viaSetWhere.sorted() == [5, 9])
        let realm = try Self.realmOfPets("public-surface-value-queries")
        let rex = try #require(realm.objects(SurfacePet.self).filter("name == 'Rex'").first)
        let friends = rex.friends.where { $0.age > 1 }
        #expect(type(of: friends) == Results<SurfacePet>.self && friends.count == 2)
    }

    @Test("sorted(byKeyPath:) without ascending sorts smallest first on a list, a set and linking objects")
    func sortedByKeyPathDefault() throws {
        let realm = try Self.realmOfPets("public-surface-sort") { pets in
            pets[0].circle.insert(objectsIn: pets)
            pets[2].friends.append(pets[0])
            pets[1].friends.append(pets[0])
        }
        let rex = try #require(realm.objects(SurfacePet.self).filter("name == 'Rex'").first)
        #expect(rex.friends.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(rex.circle.sorted(byKeyPath: "name").map(\.name) == ["Ace", "Bo", "Rex"])
        #expect(rex.fans.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(realm.objects(SurfacePet.self).sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(AnyRealmCollection(rex.friends).sorted(byKeyPath: "name").map(\.name) == ["Ace", "Bo", "Rex"])
    }
}

final class SurfaceScores: Object {
    @Persisted var best: Map<String, Int>
    @Persisted var maybe: Map<String, Double?>
}

extension PublicSurfaceTests {
    @Test("a map of values sorts its values with sorted(ascending:), nils first, managed or not", arguments: [false, true])
    func mapSortedAscending(managed: Bool) throws {
        let scores = SurfaceScores()
        scores.best.merge(["a": 3, "b": 1, "c": 2]) { $1 }
        scores.maybe.merge(["a": 2.5, "b": nil, "c": 0.5]) { $1 }
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-map", objectTypes: [SurfaceScores.self]))
        if managed { try realm.write { realm.add(scores) } }
        #expect(scores.best.sorted() == [1, 2, 3] && scores.best.sorted(ascending: false) == [3, 2, 1])
        #expect(scores.maybe.sorted() == [nil, 0.5, 2.5] && scores.maybe.sorted(ascending: false) == [2.5, 0.5, nil])
    }
}

enum SurfaceSize: Int, PersistableEnum { case small = 1, medium = 2, large = 3 }
enum SurfaceRank: Int, PersistableEnum, Comparable {
    case low, high
    static func < (lhs: SurfaceRank, rhs: SurfaceRank) -> Bool { lhs.rawValue < rhs.rawValue }
}

final class SurfaceItem: Object {
    @Persisted var size: SurfaceSize = .medium
    @Persisted var maybeSize: SurfaceSize?
    @Persisted var rank: SurfaceRank = .low
    @Persisted var maybeRank: SurfaceRank?
    @Persisted var nickname: String?
    @Persisted var bytes = Data()
    @Persisted var weight: Double?
    @Persisted var readings: List<Int>
    @Persisted var gaps: MutableSet<Double?>
    @Persisted var prices: Map<String, Int>
}

extension PublicSurfaceTests {
    /// Three items: large, small and medium, with what each test below tells apart.
    static func items() throws -> Results<SurfaceItem> {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-items-\(UUID())", objectTypes: [SurfaceItem.self]))
        try realm.write {
            realm.create(SurfaceItem.self, value: ["size": 3, "maybeSize": 1, "rank": 1, "nickname": "Zed", "bytes": Data([1, 2, 3]), "weight": 2.5,
                                                   "readings": [3, 4], "gaps": [nil, 0.5], "prices": ["a": 10, "b": 12]])
            realm.create(SurfaceItem.self, value: ["size": 1, "bytes": Data([9]), "readings": [1, 9], "prices": ["a": 30]])
            realm.create(SurfaceItem.self, value: ["size": 2, "maybeSize": 3, "nickname": "amy", "weight": 7.0, "gaps": [7.0]])
        }
        return realm.objects(SurfaceItem.self)
    }

    @Test("an enum with a numeric raw value orders as its raw value in where {}, optional or not, Comparable or not")
    func enumOrdering() throws {
        let items = try Self.items()
        #expect(items.where { $0.size > .small }.map(\.size) == [.large, .medium])
        #expect(items.where { $0.size <= .medium }.map(\.size) == [.small, .medium])
        #expect(items.where { $0.maybeSize < .medium }.map(\.size) == [.large])
        #expect(items.where { $0.maybeSize >= .small }.count == 2)
        #expect(items.where { $0.rank > .low }.map(\.size) == [.large])
        #expect(items.where { $0.maybeRank <= .high }.isEmpty)
    }

    @Test("contains, starts(with:), ends(with:), equals, notEquals and like on an optional string and on bytes")
    func textAndBytes() throws {
        let items = try Self.items()
        #expect(items.where { $0.nickname.contains("E", options: .caseInsensitive) }.map(\.size) == [.large])
        #expect(items.where { $0.nickname.starts(with: "a") }.map(\.size) == [.medium])
        #expect(items.where { $0.nickname.like("?e*") }.map(\.size) == [.large])
        #expect(items.where { $0.nickname.equals("AMY", options: .caseInsensitive) }.map(\.size) == [.medium])
        #expect(items.where { $0.bytes.contains(Data([2])) }.map(\.size) == [.large])
        #expect(items.where { $0.bytes.starts(with: Data([1, 2])) }.map(\.size) == [.large])
        #expect(items.where { $0.bytes.ends(with: Data([9])) }.map(\.size) == [.small])
        #expect(items.where { $0.bytes.notEquals(Data([9])) }.count == 2)
    }

    @Test("ranges: a half-open one on a value, and on a list, set or map every element in the range (never when empty)")
    func ranges() throws {
        let items = try Self.items()
        #expect(items.where { $0.weight.contains(2.5..<7.0) }.map(\.size) == [.large])
        #expect(items.where { $0.weight.contains(2.5...7.0) }.count == 2)
        #expect(items.where { $0.readings.contains(1...9) }.map(\.size) == [.large, .small])
        #expect(items.where { $0.readings.contains(3..<9) }.map(\.size) == [.large])
        #expect(items.where { $0.gaps.contains(0.0...1.0) }.map(\.size) == [.large])
        #expect(items.where { $0.prices.contains(10...20) }.map(\.size) == [.large])
        #expect(items.where { $0.prices.contains(10..<12) }.isEmpty)
    }
}

final class SurfaceKennel: Object {
    @Persisted var dogs: Map<String, SurfacePet?>
    @Persisted var counts: Map<String, Int>
}

extension PublicSurfaceTests {
    @Test("a map of objects sorts, filters and aggregates its objects as RealmSwift's does; contains(where:) and merge(_:) take a key and a value")
    func mapOfObjects() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-kennel", objectTypes: [SurfaceKennel.self, SurfacePet.self]))
        let kennel = SurfaceKennel()
        for (key, name, age) in [("c", "Rex", 5), ("a", "Ace", 9), ("b", "Bo", 1)] {
            kennel.dogs[key] = SurfacePet(value: ["name": name, "age": age])
        }
        kennel.dogs["empty"] = .some(nil)
        // Unmanaged: the aggregates read the objects; nils are left out.
        #expect(kennel.dogs.max(ofProperty: "age") as Int? == 9 && kennel.dogs.sum(ofProperty: "age") as Int == 15)
        try realm.write { realm.add(kennel) }
        #expect(kennel.dogs.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(kennel.dogs.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map(\.name) == ["Rex", "Bo", "Ace"])
        #expect(kennel.dogs.filter("age > %@", 2).map(\.name) == ["Ace", "Rex"])
        #expect(kennel.dogs.where { $0.age < 6 }.map(\.name) == ["Bo", "Rex"])
        #expect(kennel.dogs.min(ofProperty: "age") as Int? == 1 && kennel.dogs.average(ofProperty: "age") as Double? == 5)
        // Live: a dog added to the map shows in results read before.
        let young = kennel.dogs.filter("age < 3")
        try realm.write { kennel.dogs["d"] = SurfacePet(value: ["name": "Pup", "age": 0]) }
        #expect(young.map(\.name) == ["Bo", "Pup"])

        try realm.write {
            kennel.counts["a"] = 1
            let other = SurfaceKennel()
            other.counts.merge(["a": 10, "b": 2]) { $1 }
            kennel.counts.merge(other.counts) { $0 + $1 }
        }
        #expect(kennel.counts["a"] == 11 && kennel.counts["b"] == 2)
        #expect(kennel.counts.contains { key, value in key == "b" && value == 2 })
        #expect(!kennel.counts.contains(where: { _, value in value > 20 }))
    }
}

/// RealmSwift's SwiftUI-era model declaration: identifiable by the realm's key of the object.
final class SurfaceNote: Object, ObjectKeyIdentifiable {
    @Persisted var text = ""
}

final class SurfaceNoteTitle: Projection<SurfaceNote>, ObjectKeyIdentifiable {
    @Projected(\SurfaceNote.text) var title
}

extension PublicSurfaceTests {
    @Test("ObjectKeyIdentifiable: a managed object's id is its key, the same for every accessor of it and its projection; an unmanaged one's is its own")
    func objectKeyIdentifiable() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-identifiable", objectTypes: [SurfaceNote.self]))
        let first = SurfaceNote(value: ["text": "a"])
        let second = SurfaceNote(value: ["text": "b"])
        #expect(first.id != second.id)
        try realm.write { realm.add([first, second]) }
        let found = realm.objects(SurfaceNote.self).map(\.id)
        #expect(found == [first.id, second.id] && first.id != second.id)
        let again = try #require(realm.objects(SurfaceNote.self).filter("text == 'b'").first)
        #expect(again.id == second.id && again !== second)
        #expect(SurfaceNoteTitle(projecting: again).id == second.id)
        func identities<Item: Identifiable>(_ items: [Item]) -> Set<Item.ID> { Set(items.map(\.id)) }
        #expect(identities(Array(realm.objects(SurfaceNote.self))).count == 2)
    }
}

// RealmSwift's aggregate type names, as an app's generic helpers use them.
private func smallest<T: MinMaxType>(_ property: String, in results: Results<SurfacePet>) -> T? {
    results.min(ofProperty: property)
}
private func largest<T: MinMaxType>(_ property: String, in list: List<SurfacePet>) -> T? {
    list.max(ofProperty: property)
}
private func total<T: AddableType>(_ property: String, in results: Results<SurfacePet>) -> T {
    results.sum(ofProperty: property)
}
private func mean<T: AddableType>(_ property: String, in results: Results<SurfacePet>) -> T? {
    results.average(ofProperty: property)
}
private func isSortable<T: SortableType>(_: T.Type) -> Bool { true }
private func sortsByKeyPath<T: KeypathSortable>(_: T.Type) -> Bool { true }

extension PublicSurfaceTests {
    @Test("MinMaxType, AddableType, SortableType and KeypathSortable: generic helpers written with RealmSwift's names compile and aggregate")
    func aggregateTypeNames() throws {
        let pets = try Self.realmOfPets("public-surface-aggregate-types").objects(SurfacePet.self)
        #expect(smallest("age", in: pets) as Int? == 1)
        #expect(smallest("age", in: pets) as Double? == 1)
        #expect(smallest("age", in: pets) as Int?? == .some(1))
        let rex = try #require(pets.filter("name == 'Rex'").first)
        #expect(largest("age", in: rex.friends) as Int? == 9)
        #expect(total("age", in: pets) as Int == 15)
        #expect(mean("age", in: pets) as Double? == 5)
        #expect(mean("age", in: pets) as Decimal128? == 5)
        #expect(isSortable(String.self) && isSortable(Data.self) && isSortable(Int?.self) && isSortable(AnyRealmValue.self))
        #expect(sortsByKeyPath(SurfacePet.self) && sortsByKeyPath(Projection<SurfacePet>.self))
    }
}
