import Foundation
import Synchronization
import Testing
import TestSupport
@testable import AsyncRealm

/// Version 1 of a pack of wolves, for reading its collections by name.
enum PackV1 {
    final class Pack: Object {
        @Persisted var name: String
        @Persisted var wolves: List<Wolf>
        @Persisted var leader: Wolf?
        @Persisted var tags: List<String>
        @Persisted var members: MutableSet<Wolf>
        @Persisted var ranks: Map<String, Wolf?>
    }

    final class Wolf: Object {
        @Persisted var name: String
        @Persisted var age: Int
    }

    final class Den: Object {
        @Persisted var name: String
    }
}

/// Version 2: the pack counts its wolves, and its ages may be unknown.
enum PackV2 {
    final class Pack: Object {
        @Persisted var name: String
        @Persisted var wolves: List<Wolf>
        @Persisted var leader: Wolf?
        @Persisted var tags: List<String>
        @Persisted var members: MutableSet<Wolf>
        @Persisted var ranks: Map<String, Wolf?>
        @Persisted var size: Int
        @Persisted var ages: List<Int?>
        @Persisted var elders: List<Wolf>
        @Persisted var eldest: Wolf?
    }

    final class Wolf: Object {
        @Persisted var name: String
        @Persisted var age: Int
    }

    final class Den: Object {
        @Persisted var name: String
    }
}

@Suite("Collections read by property name")
struct DynamicCollectionTests {
    static let v1Types: [Object.Type] = [PackV1.Pack.self, PackV1.Wolf.self, PackV1.Den.self]
    static let v2Types: [Object.Type] = [PackV2.Pack.self, PackV2.Wolf.self, PackV2.Den.self]

    /// A version-1 file: the Seeonee pack, Akela (9) and Grey Brother (5), tagged "night".
    static func makeV1File(_ url: URL) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: v1Types))
        try realm.write {
            let pack = realm.create(PackV1.Pack.self, value: ["name": "Seeonee", "tags": ["night"]])
            pack.wolves.append(objectsIn: [PackV1.Wolf(value: ["Akela", 9]), PackV1.Wolf(value: ["Grey Brother", 5])])
            realm.create(PackV1.Den.self, value: ["name": "Council Rock"])
        }
    }

    /// The version-1 file at `url`, made and opened with the version-1 models.
    static func openV1File(_ url: URL) throws -> Realm {
        try makeV1File(url)
        return try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: v1Types))
    }

    @Test("a migration block reads and changes lists as List<MigrationObject>, sets and maps too, as RealmSwift's testMigrationObject")
    func migrationBlock() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeV1File(url)
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: Self.v2Types)
        let enumerated = Mutex(0)
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Pack") { oldObject, newObject in
                enumerated.withLock { $0 += 1 }
                #expect(oldObject!["wolves"]! is List<MigrationObject>)
                #expect(newObject!["wolves"]! is List<MigrationObject>)
                let old = oldObject!["wolves"] as! List<MigrationObject>
                #expect(old.count == 2 && old[0]["name"] as? String == "Akela")

                var list = newObject!["wolves"] as! List<MigrationObject>
                list[0]["name"] = "Akela the Elder"
                list.append(migration.create("Wolf", value: ["name": "Mowgli", "age": 1]))
                list = newObject!.dynamicList("wolves")
                #expect(list.map { $0["name"] as? String } == ["Akela the Elder", "Grey Brother", "Mowgli"])
                #expect(list.filter("age > 3").count == 2)

                // An unmanaged object of the class, given for a link, is copied in, as in RealmSwift.
                newObject!["leader"] = PackV2.Wolf(value: ["Raksha", 4])
                #expect((newObject!["leader"] as? MigrationObject)?["name"] as? String == "Raksha")
                // Setting the list replaces its elements; the list read before follows.
                newObject!["wolves"] = [list[0], list[2]]
                #expect(list.count == 2 && list[1]["name"] as? String == "Mowgli")

                (newObject!["tags"] as! List<String>).append("jungle")
                (newObject!["ages"] as! List<Int?>).append(objectsIn: [9, nil])
                let members = newObject!["members"] as! MutableSet<MigrationObject>
                members.insert(list[1])
                #expect(members.contains(list[1]) && !members.contains(list[0]))
                // A map's objects are optional, as RealmSwift's migration tests cast them.
                let ranks = newObject!["ranks"] as! Map<String, MigrationObject?>
                ranks["first"] = list[0]
                #expect(ranks["first"]??["name"] as? String == "Akela the Elder")
                #expect((newObject!["ranks"] as! Map<String, MigrationObject?>)["first"]?!["name"] as? String == "Akela the Elder")
                newObject!["size"] = list.count
                // Old objects stand for the same objects of the new version.
                newObject!["elders"] = oldObject!["wolves"]
                newObject!["eldest"] = old[0]
                (newObject!["elders"] as! List<MigrationObject>).append(old[1])
            }
            // create takes an object too, unmanaged or old, as RealmSwift's takes any object.
            migration.create("Wolf", value: PackV2.Wolf(value: ["Bagheera", 6]))
            migration.enumerateObjects(ofType: "Den") { oldDen, _ in migration.create("Den", value: oldDen!) }
        }
        let realm = try Realm(configuration: configuration)
        #expect(enumerated.withLock { $0 } == 1)
        let pack = try #require(realm.objects(PackV2.Pack.self).first)
        #expect(pack.wolves.map(\.name) == ["Akela the Elder", "Mowgli"])
        #expect(pack.leader?.name == "Raksha" && pack.size == 2)
        #expect(Array(pack.tags) == ["night", "jungle"] && Array(pack.ages) == [9, nil])
        #expect(pack.members.map(\.name) == ["Mowgli"])
        #expect(pack.ranks["first"]??.name == "Akela the Elder")
        #expect(pack.elders.map(\.name) == ["Akela the Elder", "Grey Brother", "Grey Brother"] && pack.eldest?.name == "Akela the Elder")
        // Akela, Grey Brother (still stored, no longer listed), Mowgli, Raksha and Bagheera.
        #expect(realm.objects(PackV2.Wolf.self).count == 5)
        #expect(realm.objects(PackV2.Wolf.self).filter("name == 'Bagheera'").first?.age == 6)
        #expect(realm.objects(PackV2.Den.self).map(\.name) == ["Council Rock", "Council Rock"])
    }

    @Test("a DynamicObject's collections are live and writable in a write transaction; dynamicList reads a typed object's")
    func outsideMigrations() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.openV1File(directory.file())
        let pack = try #require(realm.dynamicObjects("Pack").first)
        let wolves = try #require(pack["wolves"] as? List<DynamicObject>)
        let typed = try #require(realm.objects(PackV1.Pack.self).first)
        #expect(typed.dynamicList("wolves").map { $0["name"] as? String } == ["Akela", "Grey Brother"])
        #expect(wolves.index(of: wolves[1]) == 1)
        #expect(wolves.filter("name BEGINSWITH 'G'").first?["age"] as? Int == 5)

        try realm.write {
            wolves.append(realm.dynamicObjects("Wolf")[0])
            pack["leader"] = ["name": "Shere Khan", "age": 12]
            let ranks = try #require(pack["ranks"] as? Map<String, DynamicObject?>)
            ranks["enemy"] = pack["leader"] as? DynamicObject
            typed.dynamicMutableSet("members").insert(wolves[0])
        }
        // The typed object sees what was written through its dynamic twin.
        #expect(typed.wolves.map(\.name) == ["Akela", "Grey Brother", "Akela"])
        #expect(typed.leader?.name == "Shere Khan" && typed.members.first?.name == "Akela")
        #expect(realm.objects(PackV1.Wolf.self).count == 3)

        // A deleted object's key keeps its entry, with nil, as RealmSwift's map of optionals.
        try realm.write { realm.delete(typed.leader!) }
        let ranks = try #require(pack["ranks"] as? Map<String, DynamicObject?>)
        #expect(ranks["enemy"] == .some(nil) && ranks.contains(key: "enemy") && ranks.count == 1)
        #expect(ranks.map(\.key) == ["enemy"] && ranks.map(\.value).allSatisfy { $0 == nil })
        let optionalRanks: Map<String, DynamicObject?> = pack.dynamicMap("ranks")
        #expect(optionalRanks.map(\.key) == ["enemy"] && optionalRanks["enemy"] == .some(nil))
    }

    @Test("an object of another class in a collection read by name fails the write with invalidValue and stores nothing")
    func otherClassRefused() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.openV1File(directory.file())
        let pack = try #require(realm.dynamicObjects("Pack").first)
        let den = try #require(realm.dynamicObjects("Den").first)
        let wolves = try #require(pack["wolves"] as? List<DynamicObject>)
        let members = try #require(pack["members"] as? MutableSet<DynamicObject>)
        var errors: [Realm.Error] = []
        for change in [{ wolves.append(den) }, { members.insert(den) }, { wolves.insert(den, at: 0) }] {
            do {
                try realm.write { change() }
                Issue.record("the write was not refused")
            } catch let error as Realm.Error {
                errors.append(error)
            }
        }
        #expect(errors.map(\.code) == [.invalidValue, .invalidValue, .invalidValue])
        #expect(errors.allSatisfy { $0.message.contains("holds 'Wolf' objects, not a 'Den'") }, "\(errors.map(\.message))")
        #expect(wolves.count == 2 && members.isEmpty)
        // Looking up an object of another class finds nothing, even where its row key is a wolf's.
        #expect(!members.contains(den) && wolves.index(of: den) == nil)
    }

    @Test("objects, results and lists read by name freeze, thaw and pass by reference, resolved by their class name")
    func confined() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.openV1File(directory.file())
        let packs = realm.dynamicObjects("Pack")
        let pack = try #require(packs.first)
        let wolves = try #require(pack["wolves"] as? List<DynamicObject>)
        // These resolved as a class named "DynamicObject": an empty result, and a "deleted" object.
        #expect(packs.freeze().map { $0["name"] as? String } == ["Seeonee"])
        #expect(pack.freeze()["name"] as? String == "Seeonee")
        #expect(wolves.freeze().map { $0["name"] as? String } == ["Akela", "Grey Brother"])
        #expect(Frozen(realm.dynamicObjects("Wolf")).value.count == 2)
        #expect(realm.resolve(ThreadSafeReference(to: pack))?["name"] as? String == "Seeonee")
        #expect(pack.freeze().thaw()?["name"] as? String == "Seeonee")
        #expect(realm.schema["DynamicObject"] == nil)
    }
}

extension DynamicCollectionTests {
    @Test("a migration writes through a set's and a map's objects and sets a map by name from a dictionary, as RealmSwift's testMigrationObject")
    func mapAndSetIdioms() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeV1File(url)
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: Self.v1Types))
            let pack = try #require(realm.objects(PackV1.Pack.self).first)
            try realm.write {
                pack.members.insert(pack.wolves[0])
                pack.ranks["first"] = pack.wolves[0]
                pack.ranks["gone"] = realm.create(PackV1.Wolf.self, value: ["name": "Stray", "age": 2])
            }
            try realm.write { realm.delete(realm.objects(PackV1.Wolf.self).filter("name == 'Stray'")) }
        }
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: Self.v2Types)
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Pack") { oldObject, newObject in
                #expect((oldObject!["ranks"] as! Map<String, MigrationObject?>).count == 2)
                #expect((oldObject!["ranks"] as! Map<String, MigrationObject?>)["first"]?!["name"] as? String == "Akela")
                let set = newObject!["members"] as! MutableSet<MigrationObject>
                set[0]["age"] = 10
                var map = newObject!["ranks"] as! Map<String, MigrationObject?>
                #expect(map["gone"] == Optional<MigrationObject?>.some(nil))
                map["first"]?!["name"] = "Akela the Elder"
                map = newObject!.dynamicMap("ranks")
                #expect(map["first"]?!["name"] as? String == "Akela the Elder")
                newObject!["ranks"] = ["new": PackV2.Wolf(value: ["Raksha", 4])]
                #expect(map.count == 1 && map["new"]?!["name"] as? String == "Raksha")
            }
        }
        let realm = try Realm(configuration: configuration)
        let pack = try #require(realm.objects(PackV2.Pack.self).first)
        #expect(pack.wolves[0].name == "Akela the Elder" && pack.wolves[0].age == 10)
        #expect(pack.ranks.count == 1 && pack.ranks["new"]??.name == "Raksha")
    }
}
