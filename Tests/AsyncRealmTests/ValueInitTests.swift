import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

@Suite("Objects from values, create, and key-value access")
struct ValueInitTests {
    @Test("Object(value:) from a dictionary, an array in property order, and nested values")
    func initFromValues() {
        let dog = Dog(value: ["name": "Rex", "age": 3])
        #expect(dog.name == "Rex" && dog.age == 3 && dog.owner == nil)
        let fromArray = Dog(value: ["Fido", 5])
        #expect(fromArray.name == "Fido" && fromArray.age == 5)
        let person = Person(value: [
            "id": 1, "name": "Jim", "birthdate": Date(timeIntervalSince1970: 0),
            "dogs": [["name": "A"], ["B", 2], dog],
        ])
        #expect(person.id == 1 && person.name == "Jim" && person.birthdate == Date(timeIntervalSince1970: 0) && person.age == nil)
        #expect(person.dogs.map(\.name) == ["A", "B", "Rex"] && person.dogs[1].age == 2 && person.dogs[2] === dog)
        let owned = Dog(value: ["name": "Spot", "owner": ["id": 2, "name": "Ana"]])
        #expect(owned.owner?.name == "Ana")
        let every = EveryType(value: ["int8": 8, "double": 2, "size": 2, "colour": "red", "optionalInt": Optional<Int>.none as Any])
        #expect(every.int8 == 8 && every.double == 2 && every.size == .large && every.colour == .red && every.optionalInt == nil)
    }

    @Test("value(forKey:), setValue(_:forKey:) and subscripts on unmanaged and managed objects", arguments: RealmKind.allCases)
    func keyValue(kind: RealmKind) throws {
        let dog = Dog(value: ["name": "Rex"])
        #expect(dog.value(forKey: "name") as? String == "Rex")
        dog["age"] = 4
        #expect(dog.age == 4)
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write { realm.add(dog) }
        #expect(dog["age"] as? Int == 4)
        try realm.write {
            dog.setValue("Max", forKey: "name")
            dog["owner"] = ["id": 9, "name": "Owner"]
        }
        let stored = try #require(realm.objects(Dog.self).first)
        #expect(stored.name == "Max" && stored.owner?.name == "Owner")
        #expect((stored["owners"] as? LinkingObjects<Person>)?.isEmpty == true)
        #expect((stored.owner?["dogs"] as? List<Dog>)?.isEmpty == true)
    }

    @Test("create adds from values; with a primary key and an update policy it updates only the given properties", arguments: RealmKind.allCases)
    func create(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ana", "age": 30, "dogs": [["name": "Rex"]]]) }
        #expect(person.realm === realm && person.dogs.first?.name == "Rex")
        try realm.write { realm.create(Person.self, value: ["id": 1, "age": 31], update: .modified) }
        #expect(person.name == "Ana" && person.age == 31 && person.dogs.count == 1, "properties not given keep their values")
        #expect(realm.objects(Person.self).count == 1)
        try realm.write { realm.create(Person.self, value: [2, "Bo"], update: .all) }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 2)?.name == "Bo")
    }

    static let badValues: [[String: any Sendable]] = [
        ["id": 5, "name": 12],
        ["id": 5, "nickname": "x"],
        ["id": 1, "name": "again"],
        ["id": 6, "name": NSNull()],  // 'name' is required: nil is no String
    ]

    @Test("create without a value for a property gives it its default, as T() does (RealmSwift takes the defaults from a new object)")
    func createTakesDefaults() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        try realm.write {
            realm.create(Person.self, value: ["id": 6])
            realm.create(Dog.self)
        }
        let person = try #require(realm.object(ofType: Person.self, forPrimaryKey: 6))
        #expect(person.name == "" && person.age == nil && person.dogs.isEmpty)
        #expect(realm.objects(Dog.self).first?.age == 1, "the model's initial value")
        #expect(realm.objects(Dog.self).first?.name == "")
    }

    @Test("create with a wrong type, an unknown property, a duplicate key or nil for a required property fails the write and stores nothing", arguments: 0..<4)
    func createErrors(index: Int) throws {
        let value: [String: Any] = Self.badValues[index]
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ana"]) }
        let error = #expect(throws: RealmError.self) {
            try realm.write {
                realm.create(Dog.self, value: ["name": "stored?"])
                realm.create(Person.self, value: value)
            }
        }
        #expect(error?.code == .invalidValue || error?.code == .duplicatePrimaryKey)
        #expect(error?.message.contains("Person") == true, "\(error?.message ?? "")")
        if index == 3 { #expect(error?.message.contains("'name'") == true, "\(error?.message ?? "")") }
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(realm.objects(Person.self).map(\.name) == ["Ana"])
    }
}

@Suite("Dynamic objects")
struct DynamicObjectTests {
    @Test("dynamicObjects reads and writes every property by name, links and lists included", arguments: RealmKind.allCases)
    func dynamicAccess(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write {
            realm.create(Person.self, value: ["id": 1, "name": "Ana", "age": 30, "dogs": [["name": "Rex", "age": 3]]])
        }
        let reader = try Realm(configuration: kind.configuration(directory))
        let people = reader.dynamicObjects("Person")
        #expect(people.count == 1)
        let ana = try #require(people.first)
        #expect(ana["name"] as? String == "Ana" && ana["age"] as? Int == 30 && ana["birthdate"] == nil)
        let dogs = try #require(ana["dogs"] as? List<DynamicObject>)
        let rex = try #require(dogs.first)
        #expect(rex["name"] as? String == "Rex" && rex["age"] as? Int == 3)
        #expect((rex["owners"] as? [DynamicObject])?.first?["name"] as? String == "Ana")
        try reader.write {
            ana["name"] = "Ana Maria"
            rex["owner"] = ana
        }
        realm.refresh()
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ana Maria")
        #expect(realm.objects(Dog.self).first?.owner?.name == "Ana Maria")
    }

    /// Values of a property's own type take one cast (`storageValue(ofOwnType:for:)`); the
    /// rest are converted, or stand for nil, as before it. A dynamic object's values come back
    /// as they are: nil is nil, not an `Optional` boxed in `Any`.
    @Test("a value set by name on a dynamic object is stored as its property takes it: its own type, a number that converts, an optional, nil and NSNull")
    func valuesSetByName() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.file.configuration(directory))
        let object = EveryType()
        try realm.write { realm.add(object) }
        let dynamic = try #require(realm.dynamicObjects("EveryType").first)
        let boxedSeven: Any = Optional<Int>.some(7) as Any
        let boxedNone: Any = Optional<Int>.none as Any
        try realm.write {
            dynamic["int"] = 5
            dynamic["int8"] = 3
            dynamic["double"] = 2
            dynamic["float"] = 1.5
            dynamic["string"] = "text"
            dynamic["bool"] = true
            dynamic["optionalInt"] = boxedSeven
            dynamic["optionalString"] = NSNull()
        }
        #expect(object.int == 5 && object.int8 == 3 && object.double == 2 && object.float == 1.5)
        #expect(object.string == "text" && object.bool && object.optionalInt == 7 && object.optionalString == nil)
        #expect(dynamic["int"] as? Int == 5 && dynamic["double"] as? Double == 2 && dynamic["string"] as? String == "text")
        #expect(dynamic["optionalInt"] as? Int == 7 && dynamic["optionalString"] == nil)
        try realm.write {
            dynamic["int"] = 4.0  // a double that converts exactly
            dynamic["double"] = 2.25
            dynamic["optionalInt"] = boxedNone
            dynamic["optionalString"] = "again"
        }
        #expect(object.int == 4 && object.double == 2.25 && object.optionalInt == nil && object.optionalString == "again")
        #expect(dynamic["optionalInt"] == nil && dynamic["optionalString"] as? String == "again")
        try realm.write { dynamic["optionalString"] = nil }
        #expect(object.optionalString == nil && dynamic["optionalString"] == nil)
    }
}
