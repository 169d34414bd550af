import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

/// A model whose file names some properties otherwise, as RealmSwift's custom column names.
final class MappedMember: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted var age: Int
    @Persisted var tags: List<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var friends: MutableSet<MappedMember>
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<MappedMember>

    override class func propertiesMapping() -> [String: String] {
        ["id": "member_id", "firstName": "first_name", "tags": "custom_tags", "scores": "custom_scores", "friends": "custom_friends"]
    }
}

/// The same class over two versions of its model: the Swift name of a mapped property changes.
enum MappingV1 {
    final class Member: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var firstName: String
        @Persisted var nicknames: List<String>

        override class func propertiesMapping() -> [String: String] { ["firstName": "first_name", "nicknames": "nick_names"] }
    }
}

enum MappingV2 {
    final class Member: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var givenName: String
        @Persisted var aliases: List<String>

        override class func propertiesMapping() -> [String: String] { ["givenName": "first_name", "aliases": "nick_names"] }
    }
}

enum MappingV3 {
    final class Member: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var givenName: String
        @Persisted var aliases: List<String>
        @Persisted var initial: String

        override class func propertiesMapping() -> [String: String] { ["givenName": "first_name", "aliases": "nick_names", "initial": "name_initial"] }
    }
}

final class MappedAddress: EmbeddedObject {
    @Persisted var cityName: String
    override class func propertiesMapping() -> [String: String] { ["cityName": "city_name"] }
}

final class MappedHouse: Object {
    @Persisted var number: Int
    @Persisted var address: MappedAddress?
    @Persisted var rooms: List<MappedAddress>
    override class func propertiesMapping() -> [String: String] { ["address": "home_address", "rooms": "room_list"] }
}

final class MappedToNothing: Object {
    @Persisted var name: String
    override class func propertiesMapping() -> [String: String] { ["title": "the_title"] }
}

final class MappedTwice: Object {
    @Persisted var first: String
    @Persisted var second: String
    override class func propertiesMapping() -> [String: String] { ["first": "same", "second": "same"] }
}

final class MappedOverName: Object {
    @Persisted var first: String
    @Persisted var second: String
    override class func propertiesMapping() -> [String: String] { ["first": "second"] }
}

@Suite("Custom column names (propertiesMapping)")
struct PropertiesMappingTests {
    static func fill(_ realm: Realm) throws {
        try realm.write {
            let ann = realm.create(MappedMember.self, value: ["id": 1, "firstName": "Ann", "age": 30, "tags": ["a", "b"], "scores": ["x": 5]])
            let bob = realm.create(MappedMember.self, value: ["id": 2, "firstName": "Bob", "age": 40, "tags": ["b"], "scores": ["x": 1, "y": 9]])
            ann.friends.insert(bob)
        }
    }

    @Test("the schema gives each property its model name and its column name")
    func schema() throws {
        let schema = MappedMember().objectSchema
        #expect(schema["firstName"]?.columnName == "first_name" && schema["id"]?.columnName == "member_id")
        #expect(schema["age"]?.columnName == "age" && schema["friendOf"]?.columnName == "friendOf")
        #expect(schema["first_name"] == nil)
        #expect(schema["firstName"]?.description == "firstName: string (column 'first_name')")
    }

    @Test("objects are written, read, queried, sorted and read by name with the model's names")
    func modelNames() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mapping-\(UUID())", objectTypes: [MappedMember.self]))
        try Self.fill(realm)
        let members = realm.objects(MappedMember.self)
        #expect(members.filter("firstName == 'Ann'").map(\.id) == [1])
        #expect(members.where { $0.firstName == "Bob" }.first?.age == 40)
        #expect(members.sorted(byKeyPath: "firstName", ascending: false).map(\.firstName) == ["Bob", "Ann"])
        #expect(members.filter("ANY tags == 'a'").map(\.id) == [1])
        #expect(members.filter("scores['y'] == 9").map(\.id) == [2])
        #expect(members.filter("friends.@count == 1").map(\.id) == [1])
        #expect(members.filter("ANY friendOf.firstName == 'Ann'").map(\.id) == [2])
        let bob = try #require(realm.object(ofType: MappedMember.self, forPrimaryKey: 2))
        #expect(bob.friendOf.map(\.firstName) == ["Ann"] && Array(bob.scores.keys) == ["x", "y"])
        #expect(bob.value(forKey: "firstName") as? String == "Bob")
        let dynamic = try #require(realm.dynamicObject(ofType: "MappedMember", forPrimaryKey: 1))
        #expect(dynamic["firstName"] as? String == "Ann")
        #expect(realm.schema["MappedMember"]?["tags"]?.columnName == "custom_tags")
        try realm.write { bob.tags.append("c"); bob.firstName = "Rob" }
        #expect(members.filter("firstName == 'Rob' AND ANY tags == 'c'").count == 1)
    }

    @Test("the file holds the column names: a realm that does not know the model reads them")
    func fileNames() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.fill(Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappedMember.self])))
        let plain = try Realm(configuration: Realm.Configuration(fileURL: url))
        let stored = try #require(plain.schema["MappedMember"])
        #expect(stored.properties.map(\.name) == ["member_id", "first_name", "age", "custom_tags", "custom_scores", "custom_friends", "friendOf"])
        let ann = try #require(plain.dynamicObjects("MappedMember").filter("first_name == 'Ann'").first)
        #expect(ann["member_id"] as? Int == 1)
        #expect((ann["custom_tags"] as? List<String>).map(Array.init) == ["a", "b"])
        // The model opens it again with its own names, and reads what it wrote.
        let again = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappedMember.self]))
        #expect(again.objects(MappedMember.self).filter("firstName == 'Ann'").first?.tags.count == 2)
    }

    @Test("a property renamed in the model keeps its column name and needs no migration; a migration reads old objects by column name")
    func renamedInModel() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappingV1.Member.self]))
            try realm.write { realm.create(MappingV1.Member.self, value: ["id": 1, "firstName": "Ann", "nicknames": ["Annie"]]) }
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappingV2.Member.self]))
            let member = try #require(realm.objects(MappingV2.Member.self).filter("givenName == 'Ann'").first)
            #expect(Array(member.aliases) == ["Annie"])
            try realm.write { member.aliases.append("A") }
        }
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [MappingV3.Member.self])
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Member") { old, new in
                let name = old?["first_name"] as? String ?? ""
                new?["initial"] = String(name.prefix(1))
            }
        }
        let realm = try Realm(configuration: configuration)
        let member = try #require(realm.objects(MappingV3.Member.self).first)
        #expect(member.initial == "A" && member.givenName == "Ann" && Array(member.aliases) == ["Annie", "A"])
        #expect(realm.objects(MappingV3.Member.self).filter("initial == 'A' AND ANY aliases == 'A'").count == 1)
    }

    @Test("a schema mismatch names the model's properties, with their column names where those differ")
    func mismatchNamesProperties() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappingV2.Member.self]))
            try realm.write { realm.create(MappingV2.Member.self, value: ["id": 1, "givenName": "Ann"]) }
        }
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MappingV3.Member.self]))
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("property 'Member.initial' (column 'name_initial') was added") == true, "\(error?.message ?? "")")
    }

    @Test("embedded objects and lists of them are mapped too, and queried through their parent by the model's names")
    func embedded() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mapping-\(UUID())", objectTypes: [MappedHouse.self, MappedAddress.self]))
        try realm.write {
            realm.create(MappedHouse.self, value: ["number": 1, "address": ["cityName": "Porto"], "rooms": [["cityName": "a"], ["cityName": "b"]]])
            realm.create(MappedHouse.self, value: ["number": 2, "address": ["cityName": "Lisbon"]])
        }
        let houses = realm.objects(MappedHouse.self)
        #expect(houses.filter("address.cityName == 'Porto'").map(\.number) == [1])
        #expect(houses.filter("ANY rooms.cityName == 'b'").map(\.number) == [1])
        #expect(houses.sorted(byKeyPath: "address.cityName").map(\.number) == [2, 1])
        try realm.write { houses.first!.rooms.remove(at: 0) }
        #expect(houses.first!.rooms.map(\.cityName) == ["b"])
        #expect(realm.schema["MappedAddress"]?["cityName"]?.columnName == "city_name")
    }

    @Test("a mapping that names no property, or gives two properties one column, is a schema error")
    func invalidMappings() {
        for type in [MappedToNothing.self, MappedTwice.self, MappedOverName.self] as [Object.Type] {
            #expect(throws: RealmError.self) {
                _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mapping-\(UUID())", objectTypes: [type]))
            }
        }
    }
}
