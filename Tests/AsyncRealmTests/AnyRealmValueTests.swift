import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

final class Setting: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: AnyRealmValue
    @Persisted var history: List<AnyRealmValue>
    @Persisted var options: Map<String, AnyRealmValue>
}

final class Profile: Object {
    @Persisted var name: String
}

final class IndexedSetting: Object {
    @Persisted(indexed: true) var value: AnyRealmValue
}

@Suite("AnyRealmValue")
struct AnyRealmValueTests {
    @Test("an AnyRealmValue may be declared indexed, as in RealmSwift: it keeps no index, and == still matches numbers of every kind", arguments: RealmKind.allCases)
    func indexedDeclaration(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [IndexedSetting.self]))
        #expect(realm.schema["IndexedSetting"]?["value"]?.isIndexed == true)
        try realm.write {
            for value: AnyRealmValue in [.int(5), .double(5), .decimal128(5), .string("5"), .none, .objectId(ObjectId.generate())] {
                realm.create(IndexedSetting.self, value: ["value": value])
            }
        }
        #expect(realm.objects(IndexedSetting.self).filter("value == 5").count == 3)
        #expect(realm.objects(IndexedSetting.self).filter("value IN {'5', nil}").count == 2)
        let table = try #require(realm.readTable(named: SchemaStore.tableName(forClass: "IndexedSetting")))
        #expect(!table.hasIndex(on: 0))
        // Opened again, the schema matches the model.
        let again = try Realm(configuration: kind.configuration(directory, objectTypes: [IndexedSetting.self]))
        #expect(again.objects(IndexedSetting.self).count == 6)
    }

    private let types: [Object.Type] = [Setting.self, Profile.self]

    static var samples: [AnyRealmValue] { [
        .none, .int(-7), .bool(true), .float(1.5), .double(-2.25), .string("text"), .data(Data([0, 1, 2])),
        .date(Date(timeIntervalSince1970: 1_000.5)), .objectId(try! ObjectId(string: "5f1b2c3d4e5f60718293a4b5")),
        .decimal128(Decimal(string: "12.345")!), .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!),
    ] }

    @Test("every kind of value is stored and read back as it was, in a property, a list and a map", arguments: RealmKind.allCases)
    func roundTrip(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        try realm!.write {
            for (id, sample) in Self.samples.enumerated() {
                let setting = Setting()
                setting.id = id
                setting.value = sample
                setting.history.append(sample)
                setting.options["v"] = sample
                realm!.add(setting)
            }
        }
        func check(_ realm: Realm) {
            for (id, sample) in Self.samples.enumerated() {
                let setting = realm.object(ofType: Setting.self, forPrimaryKey: id)!
                #expect(setting.value == sample, "\(sample)")
                #expect(setting.history.first == sample && setting.options["v"] == sample, "\(sample)")
            }
        }
        check(realm!)
        if kind == .file {
            realm = nil
            check(try Realm(configuration: kind.configuration(directory, objectTypes: types)))
        }
    }

    @Test("a link to an object of any class reads back as that class; a deleted one reads as none")
    func links() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-links", objectTypes: types))
        let profile = Profile()
        profile.name = "Ana"
        let setting = Setting()
        setting.value = .object(profile)
        try realm.write { realm.add(setting) }
        #expect(profile.realm === realm, "linking an unmanaged object adds it")
        #expect(setting.value.object(Profile.self)?.name == "Ana")
        #expect(setting.value.dynamicObject?["name"] as? String == "Ana")
        let other = Setting()
        other.id = 1
        other.value = .object(setting)
        try realm.write { realm.add(other) }
        #expect(other.value.object(Setting.self)?.value.object(Profile.self)?.name == "Ana")
        try realm.write { realm.delete(profile) }
        #expect(setting.value == .none)
    }

    @Test("queries compare numbers across kinds, other kinds only with their own; sorts order by kind")
    func queries() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-queries", objectTypes: types))
        try realm.write {
            for (id, sample) in Self.samples.enumerated() {
                realm.create(Setting.self, value: ["id": id, "value": sample])
            }
            realm.create(Setting.self, value: ["id": 20, "value": AnyRealmValue.int(1)])
            realm.create(Setting.self, value: ["id": 21, "value": AnyRealmValue.double(1.0)])
            realm.create(Setting.self, value: ["id": 22, "value": AnyRealmValue.string("1")])
        }
        let settings = realm.objects(Setting.self)
        #expect(settings.filter("value == 1").map(\.id) == [20, 21])
        #expect(settings.filter("value == '1'").map(\.id) == [22])
        #expect(settings.filter("value == nil").map(\.id) == [0])
        #expect(settings.filter("value > 0").map(\.id).sorted() == [3, 9, 20, 21])
        #expect(settings.filter("value BEGINSWITH 'te'").map(\.id) == [5])
        #expect(settings.filter("value == true").map(\.id) == [2])
        #expect(settings.filter("value == %@", try! ObjectId(string: "5f1b2c3d4e5f60718293a4b5")).map(\.id) == [8])
        #expect(settings.where { $0.value == .int(-7) }.map(\.id) == [1])
        let sorted = settings.sorted(byKeyPath: "value").map(\.id)
        #expect(sorted.first == 0, "none sorts first")
        #expect(Array(sorted.prefix(2)) == [0, 2], "then booleans")
        #expect(sorted.firstIndex(of: 5)! > sorted.firstIndex(of: 9)!, "strings after numbers")
        #expect(sorted.last == 10, "UUIDs last among these")
    }

    @Test("create, setValue and DynamicObject take and give plain values")
    func dynamicValues() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-dynamic", objectTypes: types))
        let setting = try realm.write { realm.create(Setting.self, value: ["id": 1, "value": 42]) }
        #expect(setting.value == .int(42))
        try realm.write { setting.setValue("dark", forKey: "value") }
        #expect(setting.value == .string("dark"))
        let dynamic = try #require(realm.dynamicObjects("Setting").first)
        #expect(dynamic["value"] as? String == "dark")
        try realm.write { dynamic["value"] = 2.5 }
        #expect(setting.value == .double(2.5))
        #expect(realm.schema["Setting"]?["value"]?.type == .any)
        #expect(realm.schema["Setting"]?["value"]?.description == "value: mixed")
    }
}

/// A second class, whose first object has the same row key as the first `Profile`.
final class Badge: Object {
    @Persisted var label: String
}

extension AnyRealmValueTests {
    @Test("an AnyRealmValue holding an object equals that object, never another class's object of the same row key", arguments: RealmKind.allCases)
    func objectsOfTwoClasses(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Setting.self, Profile.self, Badge.self]))
        try realm.write {
            let profile = realm.create(Profile.self, value: ["name": "Ana"])
            realm.create(Badge.self, value: ["label": "gold"])
            realm.create(Setting.self, value: ["id": 1, "value": AnyRealmValue.object(profile), "history": [AnyRealmValue.object(profile)],
                                              "options": ["owner": AnyRealmValue.object(profile)]])
        }
        let (profile, badge) = (try #require(realm.objects(Profile.self).first), try #require(realm.objects(Badge.self).first))
        let settings = realm.objects(Setting.self)
        for (predicate, argument) in [("value == %@", [profile] as Any), ("ANY history == %@", [profile]), ("value IN %@", [[badge, profile]]), ("options['owner'] == %@", [profile])] {
            #expect(settings.filter(predicate, (argument as! [Any])[0]).count == 1, "\(predicate)")
        }
        for predicate in ["value == %@", "ANY history == %@", "value IN %@", "options['owner'] == %@"] {
            let argument: Any = predicate.contains("IN") ? [badge] : badge
            #expect(settings.filter(predicate, argument).isEmpty, "\(predicate) with a badge")
        }
        #expect(settings.filter("value != %@", badge).count == 1)
        #expect(settings.where { $0.value == .object(badge) }.isEmpty && settings.where { $0.value == .object(profile) }.count == 1)
    }
}
