import Foundation
import Testing
@testable import AsyncRealm

final class TwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) var a: Int
    @Persisted(primaryKey: true) var b: String
}

final class DoublePrimaryKey: Object {
    @Persisted(primaryKey: true) var value: Double
}

final class IndexedList: Object {
    @Persisted(indexed: true) var values: List<Int>
}

final class RequiredLink: Object {
    @Persisted var dog: Dog
}

final class WrongOrigin: Object {
    @Persisted(originProperty: "name") var owners: LinkingObjects<Person>
}

final class MissingOrigin: Object {
    @Persisted(originProperty: "nothing") var owners: LinkingObjects<Person>
}

@Suite("Schema discovery")
struct SchemaTests {
    @Test("the reference models: properties in order, options, links, lists and backlinks; plain properties ignored")
    func personAndDog() throws {
        let schema = try SchemaDiscovery.schema(for: [Dog.self])
        #expect(schema.objectSchema.map(\.className) == ["Dog", "Person"], "Person is registered through Dog's links")
        let dog = try #require(schema["Dog"])
        #expect(dog.properties.map(\.name) == ["name", "age", "owner", "owners"])
        #expect(dog["name"]?.isIndexed == true)
        #expect(dog["age"]?.type == .int && dog["age"]?.isOptional == false)
        #expect(dog["owner"]?.type == .object && dog["owner"]?.objectClassName == "Person" && dog["owner"]?.isOptional == true)
        #expect(dog["owners"]?.type == .linkingObjects && dog["owners"]?.linkOriginPropertyName == "dogs")
        #expect(dog["scratch"] == nil)
        let person = try #require(schema["Person"])
        #expect(person.primaryKeyProperty?.name == "id")
        #expect(person["birthdate"]?.type == .date && person["birthdate"]?.isOptional == true)
        #expect(person["dogs"]?.isArray == true && person["dogs"]?.objectClassName == "Dog")
        #expect(dog.storedProperties.count == 3, "linking objects are not stored")
    }

    @Test("every supported property type maps to its schema type")
    func everyType() throws {
        let schema = try #require(try SchemaDiscovery.schema(for: [EveryType.self])["EveryType"])
        let expected: [(String, PropertyType, Bool, Bool)] = [
            ("bool", .bool, false, false), ("int", .int, false, false), ("int8", .int, false, false),
            ("int16", .int, false, false), ("int32", .int, false, false), ("int64", .int, false, false),
            ("float", .float, false, false), ("double", .double, false, false), ("string", .string, false, false),
            ("data", .data, false, false), ("date", .date, false, false), ("uuid", .uuid, false, false),
            ("decimal", .decimal128, false, false), ("objectId", .objectId, false, false),
            ("size", .int, false, false), ("colour", .string, true, false), ("optionalInt", .int, true, false),
            ("optionalString", .string, true, false), ("ints", .int, false, true),
            ("optionalStrings", .string, true, true), ("dogs", .object, false, true),
        ]
        #expect(schema.properties.map(\.name) == expected.map(\.0))
        for (name, type, optional, array) in expected {
            let property = try #require(schema[name])
            #expect(property.type == type, "\(name)")
            #expect(property.isOptional == optional, "\(name)")
            #expect(property.isArray == array, "\(name)")
        }
    }

    @Test("unmanaged objects behave like plain Swift objects, with defaults from the initialisers")
    func unmanagedObjects() {
        let dog = Dog()
        #expect(dog.name == "" && dog.age == 1 && dog.owner == nil && dog.owners.isEmpty)
        let person = Person()
        person.name = "Ana"
        person.dogs.append(dog)
        person.dogs.append(dog)
        dog.owner = person
        #expect(person.dogs.count == 2 && person.dogs[1] === dog)
        #expect(dog.owner?.name == "Ana")
        let shirt = EveryType()
        #expect(shirt.size == .small && shirt.colour == nil && shirt.decimal == 0)
        shirt.size = .large
        #expect(shirt.size == .large)
    }

    @Test("invalid models are thrown errors naming the class and property", arguments: [
        (TwoPrimaryKeys.self as Object.Type, "'TwoPrimaryKeys' declares 2 primary keys ('a', 'b')"),
        (DoublePrimaryKey.self, "property 'value' of 'DoublePrimaryKey' cannot be a primary key"),
        (IndexedList.self, "property 'values' of 'IndexedList' cannot be indexed"),
        (RequiredLink.self, "property 'dog' of 'RequiredLink' links to 'Dog' and must be optional"),
        (WrongOrigin.self, "property 'owners' of 'WrongOrigin' is LinkingObjects<Person>(originProperty: \"name\"), but 'Person.name' does not link to 'WrongOrigin'"),
        (MissingOrigin.self, "but 'Person' has no property 'nothing'"),
    ])
    func invalidModels(type: Object.Type, message: String) {
        let error = #expect(throws: RealmError.self) { try SchemaDiscovery.schema(for: [type]) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test("ObjectId: generated ids are unique and increasing, and round-trip through their string")
    func objectIds() throws {
        let ids = (0..<1000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == 1000)
        #expect(ids == ids.sorted() || ids.dropFirst().contains { $0.bytes[9...] == [0, 0, 0] }, "ordered unless the counter wrapped")
        for id in ids.prefix(20) { #expect(try ObjectId(string: id.stringValue) == id) }
        #expect(abs(ids[0].timestamp.timeIntervalSinceNow) < 5)
        #expect(try ObjectId(string: "0123456789ABCDEFabcdef01").stringValue == "0123456789abcdefabcdef01")
        #expect(throws: RealmError.self) { try ObjectId(string: "xyz") }
        #expect(throws: RealmError.self) { try ObjectId(string: "0123456789abcdef0123456g") }
    }

    @Test("ObjectId(timestamp:machineId:processId:) records the time, the machine and the process, and differs each time")
    func objectIdOfParts() {
        let time = Date(timeIntervalSince1970: 1_700_000_000.75)
        let first = ObjectId(timestamp: time, machineId: 0x0A0B0C0D, processId: 0x0102_0304)
        let second = ObjectId(timestamp: time, machineId: 0x0A0B0C0D, processId: 0x0102_0304)
        #expect(first.timestamp == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(first.stringValue.prefix(18) == "6553f1000d0c0b0403")
        #expect(first != second && first.bytes[..<9] == second.bytes[..<9])
    }
}
