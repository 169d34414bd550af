import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

// RealmSwift's key-value coding: key paths through links and lists, and the collection
// operators (`@count`, `@sum.age`...) of its `testValueForKeyPath`.

extension RealmSwiftCompatibilityTests {
    @Test("value(forKeyPath:) follows links and lists, on an object and on every object of a collection", arguments: RealmKind.allCases)
    func valueForKeyPath(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self, Dog.self]))
        try realm.write {
            let ana = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex", age: 3), ObjectTests.makeDog("Fido", age: 5)])
            for dog in ana.dogs { dog.owner = ana }
            realm.add(ana)
            realm.add(ObjectTests.makeDog("Stray"))
        }
        let rex = try #require(realm.objects(Dog.self).filter("name == 'Rex'").first)
        #expect(rex.value(forKeyPath: "owner.name") as? String == "Ana")
        #expect(rex.value(forKeyPath: "name") as? String == "Rex")
        #expect((rex.value(forKeyPath: "owner.dogs.age") as? [Any?])?.compactMap { $0 as? Int } == [3, 5])
        #expect(realm.objects(Dog.self).filter("name == 'Stray'").first?.value(forKeyPath: "owner.name") == nil)
        let owners = realm.objects(Dog.self).sorted(byKeyPath: "name").value(forKeyPath: "owner.name")
        #expect(owners as? [String?] == ["Ana", "Ana", nil])
        let unmanaged = ObjectTests.makeDog("Pup")
        unmanaged.owner = ObjectTests.makePerson(2, "Bo")
        #expect(unmanaged.value(forKeyPath: "owner.name") as? String == "Bo")
    }
}

/// A model with a number of each kind the collection operators add up.
final class Measurement: Object {
    @Persisted var count: Int
    @Persisted var small: Int8
    @Persisted var ratio: Double
    @Persisted var weight: Float
    @Persisted var price: Decimal
    @Persisted var optional: Int?
    @Persisted var taken: Date
    @Persisted var label: String
}

extension RealmSwiftCompatibilityTests {
    @Test("value(forKeyPath:) answers @count, @sum, @avg, @min, @max and the unions, as RealmSwift's testValueForKeyPath", arguments: RealmKind.allCases)
    func collectionOperators(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self, Dog.self]))
        try realm.write {
            realm.add(ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex", age: 1), ObjectTests.makeDog("Fido", age: 2), ObjectTests.makeDog("Rex", age: 3)]))
            realm.add(ObjectTests.makePerson(2, "Bo"))
        }
        let dogs = realm.objects(Dog.self)
        // RealmSwift's test reads them as NSNumbers.
        #expect((dogs.value(forKeyPath: "@count") as! NSNumber?)?.int64Value == 3)
        #expect((dogs.value(forKeyPath: "@max.age") as! NSNumber?)?.int64Value == 3)
        #expect((dogs.value(forKeyPath: "@min.age") as! NSNumber?)?.int64Value == 1)
        #expect((dogs.value(forKeyPath: "@sum.age") as! NSNumber?)?.int64Value == 6)
        #expect((dogs.value(forKeyPath: "@avg.age") as! NSNumber?)?.doubleValue == 2.0)
        #expect(dogs.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["Rex", "Fido", "Rex"])
        #expect(dogs.value(forKeyPath: "@distinctUnionOfObjects.name") as? [String] == ["Rex", "Fido"])
        #expect(dogs.value(forKey: "@count") as? Int == 3)
        // Through a filter, a list, an object's key path and a link.
        #expect(dogs.filter("age > 1").value(forKeyPath: "@sum.age") as? Int == 5)
        let ana = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(ana.dogs.value(forKeyPath: "@max.age") as? Int == 3)
        #expect(ana.value(forKeyPath: "dogs.@count") as? Int == 3)
        #expect(ana.value(forKeyPath: "dogs.@avg.age") as? Double == 2.0)
        #expect(dogs.first?.value(forKeyPath: "owners.@count") as? Int == 1)
        // Nothing to aggregate: a count of 0, a sum of 0, no mean, no extreme; nils left out.
        let bo = try #require(realm.object(ofType: Person.self, forPrimaryKey: 2))
        #expect(bo.value(forKeyPath: "dogs.@count") as? Int == 0)
        #expect(bo.value(forKeyPath: "dogs.@sum.age") as? Int == 0)
        #expect(bo.value(forKeyPath: "dogs.@avg.age") == nil)
        #expect(bo.value(forKeyPath: "dogs.@min.age") == nil)
        #expect(realm.objects(Person.self).value(forKeyPath: "@max.age") == nil)
        try realm.write { ana.age = 30 }
        #expect(realm.objects(Person.self).value(forKeyPath: "@max.age") as? Int == 30)
        #expect(realm.objects(Person.self).value(forKeyPath: "@avg.age") as? Double == 30)
        // Unmanaged lists answer the same.
        let pup = ObjectTests.makePerson(3, "Cy", dogs: [ObjectTests.makeDog("A", age: 4), ObjectTests.makeDog("B", age: 6)])
        #expect(pup.dogs.value(forKeyPath: "@avg.age") as? Double == 5)
        #expect(pup.value(forKeyPath: "dogs.@min.age") as? Int == 4)
    }

    @Test("the collection operators type sums as Realm does and compare dates, decimals and mixed numbers", arguments: RealmKind.allCases)
    func collectionOperatorTypes(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Measurement.self]))
        let first = Date(timeIntervalSince1970: 1_000), last = Date(timeIntervalSince1970: 5_000)
        try realm.write {
            for (index, taken) in [first, last, Date(timeIntervalSince1970: 3_000)].enumerated() {
                let measurement = Measurement()
                measurement.count = index + 1
                measurement.small = Int8(-index)
                measurement.ratio = Double(index) + 0.5
                measurement.weight = Float(index) * 2
                measurement.price = Decimal(string: "0.1")! * Decimal(index + 1)
                measurement.optional = index == 1 ? nil : index
                measurement.taken = taken
                measurement.label = "m\(index)"
                realm.add(measurement)
            }
        }
        let all = realm.objects(Measurement.self)
        #expect(all.value(forKeyPath: "@sum.count") as? Int == 6)
        #expect(all.value(forKeyPath: "@sum.small") as? Int == -3)
        #expect(all.value(forKeyPath: "@min.small") as? Int8 == -2)
        #expect(all.value(forKeyPath: "@sum.ratio") as? Double == 4.5)
        #expect(all.value(forKeyPath: "@sum.weight") as? Double == 6)
        #expect(all.value(forKeyPath: "@max.weight") as? Float == 4)
        #expect(all.value(forKeyPath: "@sum.price") as? Decimal == Decimal(string: "0.6"))
        #expect(all.value(forKeyPath: "@avg.price") as? Decimal == Decimal(string: "0.2"))
        #expect(all.value(forKeyPath: "@max.price") as? Decimal == Decimal(string: "0.3"))
        #expect(all.value(forKeyPath: "@sum.optional") as? Int == 2)
        #expect(all.value(forKeyPath: "@avg.optional") as? Double == 1)
        #expect(all.value(forKeyPath: "@min.taken") as? Date == first)
        #expect(all.value(forKeyPath: "@max.taken") as? Date == last)
        #expect(all.value(forKeyPath: "@unionOfObjects.optional") as? [Int] == [0, 2])
    }

    @Test("an unknown collection operator, one without its property, or a sum of strings stops with a message")
    func collectionOperatorMisuse() async throws {
        let unknown = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "operator-unknown", objectTypes: [Person.self, Dog.self]))
            _ = realm.objects(Dog.self).value(forKeyPath: "@median.age")
        }
        #expect(String(decoding: unknown.standardErrorContent, as: UTF8.self).contains("'@median' is not a collection operator"))
        let bare = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "operator-bare", objectTypes: [Person.self, Dog.self]))
            _ = realm.objects(Dog.self).value(forKeyPath: "@sum")
        }
        #expect(String(decoding: bare.standardErrorContent, as: UTF8.self).contains("'@sum' needs the property it aggregates after it"))
        let strings = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "operator-strings", objectTypes: [Person.self, Dog.self]))
            try realm.write { realm.add(ObjectTests.makeDog("Rex")) }
            _ = realm.objects(Dog.self).value(forKeyPath: "@sum.name")
        }
        #expect(String(decoding: strings.standardErrorContent, as: UTF8.self).contains("'@sum.name' adds up numbers; String is not one"))
        let onObject = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ObjectTests.makeDog("Rex").value(forKeyPath: "@count")
        }
        #expect(String(decoding: onObject.standardErrorContent, as: UTF8.self).contains("'@count' applies to a list, set or results, not to a Dog"))
    }
}
