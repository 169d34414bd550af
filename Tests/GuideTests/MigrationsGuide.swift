import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

// The examples of Docs/Migrations.md, compiled and run. Each version of the app's models lives
// in its own namespace; a test names the version it plays with `typealias`.

enum GuideV1 {
    final class Person: Object {
        @Persisted var name: String
        @Persisted var age: Int?
        @Persisted var dogs: List<Dog>
        @Persisted var born: String
    }

    final class Dog: Object {
        @Persisted var name: String
    }

    final class Ticket: Object {
        @Persisted var number: Int
        @Persisted var title: String
    }
}

enum GuideV2 {
    final class Person: Object {
        @Persisted var name: String
        @Persisted var age: Int = 18
        @Persisted var email = "unknown"
        @Persisted var dogs: List<GuideV1.Dog>
        @Persisted var born: String
    }

    final class Ticket: Object {
        @Persisted(primaryKey: true) var number: Int
        @Persisted var title: String
    }
}

enum GuideV3 {
    final class Person: Object {
        @Persisted var name: String
        @Persisted var age: Int = 18
        @Persisted var email = "unknown"
        @Persisted var pets: List<GuideV1.Dog>
        @Persisted var born: Int = 1900
    }
}

@Suite("Docs/Migrations.md")
struct MigrationGuideTests {
    /// A version-1 file: Ana (no age, born "1990", one dog) and Bo (40, born "1985").
    static func versionOne(_ url: URL, born: String = "1990") throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [GuideV1.Person.self, GuideV1.Ticket.self]))
        try realm.write {
            let ana = realm.create(GuideV1.Person.self, value: ["name": "Ana", "born": born])
            ana.dogs.append(realm.create(GuideV1.Dog.self, value: ["name": "Rex"]))
            realm.create(GuideV1.Person.self, value: ["name": "Bo", "age": 40, "born": "1985"])
            for title in ["a", "b", "c"] { realm.create(GuideV1.Ticket.self, value: ["number": 1, "title": title]) }
        }
    }

    @Test("the schema version")
    func schemaVersion() throws {
        typealias Person = GuideV1.Person
        typealias Dog = GuideV1.Dog
        let directory = TemporaryDirectory()
        let url = directory.file()
        let config = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [Person.self, Dog.self])
        let realm = try Realm(configuration: config)
        let version = try schemaVersionAtURL(url)   // 1
        #expect(version == 1)
        #expect(realm.isEmpty)
    }

    @Test("automatic changes")
    func automaticChanges() throws {
        typealias Person = GuideV2.Person
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.versionOne(url)
        // Version 1 had `Person.age: Int?`; version 2 declares `@Persisted var age: Int = 18`
        // and a new `@Persisted var email = "unknown"`.
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [Person.self]))
        let people = realm.objects(Person.self).sorted(byKeyPath: "name")
        #expect(people.map(\.age) == [18, 40])
        #expect(people.map(\.email) == ["unknown", "unknown"])
        #expect(people[0].dogs.map(\.name) == ["Rex"])
    }

    /// The guide's migration to version 3.
    static func migrateToVersionThree(_ url: URL) throws -> Realm {
        typealias Person = GuideV3.Person
        typealias Dog = GuideV1.Dog
        var config = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self, Dog.self])
        config.migrationBlock = { migration, oldSchemaVersion in
            if oldSchemaVersion < 2 {
                // `dogs` became `pets`: the lists keep their elements.
                migration.renameProperty(onType: "Person", from: "dogs", to: "pets")
            }
            if oldSchemaVersion < 3 {
                // `born` changed from String to Int: convert each value.
                migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                    newObject!["born"] = Int(oldObject!["born"] as! String) ?? 1900
                }
            }
        }
        let realm = try Realm(configuration: config)
        return realm
    }

    @Test("the migration block, from version 1 and from version 2")
    func migrationBlock() throws {
        typealias Person = GuideV3.Person
        typealias Dog = GuideV1.Dog
        for start in [1, 2] {
            let directory = TemporaryDirectory()
            let url = directory.file()
            try Self.versionOne(url)
            if start == 2 {
                _ = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [GuideV2.Person.self, GuideV1.Ticket.self]))
            }
            var realm: Realm
            if start == 1 {
                realm = try Self.migrateToVersionThree(url)
            } else {
                // From version 2, `dogs` is renamed too: version 2 still had it.
                var config = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self, Dog.self])
                config.migrationBlock = { migration, oldSchemaVersion in
                    #expect(oldSchemaVersion == 2)
                    migration.renameProperty(onType: "Person", from: "dogs", to: "pets")
                    migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                        newObject!["born"] = Int(oldObject!["born"] as! String) ?? 1900
                    }
                }
                realm = try Realm(configuration: config)
            }
            let ana = try #require(realm.objects(Person.self).filter("name == 'Ana'").first)
            #expect(ana.born == 1990)
            #expect(ana.pets.map(\.name) == ["Rex"])
            #expect(realm.objects(Person.self).filter("born == 1985").count == 1)
        }
    }

    @Test("a new primary key made unique by the block")
    func uniquePrimaryKey() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.versionOne(url)
        var config = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [GuideV2.Ticket.self])
        config.migrationBlock = { migration, _ in
            var next = 1
            migration.enumerateObjects(ofType: "Ticket") { _, newObject in
                newObject!["number"] = next
                next += 1
            }
        }
        let realm = try Realm(configuration: config)
        #expect(Set(realm.objects(GuideV2.Ticket.self).map(\.number)) == [1, 2, 3])
    }

    @Test("a list read by name in the block")
    func listsByName() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.versionOne(url)
        var config = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [GuideV2.Person.self, GuideV1.Dog.self])
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Person") { _, newObject in
                // Every person gets a dog: the list holds the new schema's Dogs, read by name.
                let dogs = newObject!["dogs"] as! List<MigrationObject>
                if dogs.isEmpty { dogs.append(migration.create("Dog", value: ["name": "Buddy"])) }
            }
        }
        let realm = try Realm(configuration: config)
        let people = realm.objects(GuideV2.Person.self).sorted(byKeyPath: "name")
        #expect(people.map { $0.dogs.map(\.name) } == [["Rex"], ["Buddy"]])
    }

    @Test("a failing migration leaves the file as it was")
    func failingMigration() throws {
        typealias Person = GuideV3.Person
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.versionOne(url, born: "nineteen ninety")
        let bytes = try Data(contentsOf: url)
        var config = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self])
        struct CorruptAge: Error {}
        config.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                guard let text = oldObject!["born"] as? String, let year = Int(text) else { throw CorruptAge() }
                newObject!["born"] = year
            }
        }
        #expect(throws: CorruptAge.self) { try Realm(configuration: config) }
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try schemaVersionAtURL(url) == 1)
    }
}
