import Foundation
import Synchronization
import Testing
import TestSupport
@testable import AsyncRealm
@testable import StorageEngine

/// Version 1 of an app's models.
enum Old {
    final class Person: Object {
        @Persisted var name: String
        @Persisted var age: Int?
        @Persisted var nickname: String?
        @Persisted var dogs: List<Dog>
        @Persisted var born: String
    }

    final class Dog: Object {
        @Persisted(indexed: true) var name: String
        @Persisted var yearsOld: Int
        @Persisted var owner: Person?
        @Persisted var tags: List<String?>
    }

    final class Cat: Object {
        @Persisted var name: String
    }
}

/// Version 2: every kind of change from `Old`.
enum New {
    final class Person: Object {
        // Gained an index.
        @Persisted(indexed: true) var name: String
        // Optional to required: nulls become the default.
        @Persisted var age: Int = 18
        // Added, with a default.
        @Persisted var email: String = "unknown"
        // Renamed from `dogs` (by the block), or new (without one).
        @Persisted var pets: List<Dog>
        // String to Int: converted by the block, or the default.
        @Persisted var born: Int = 1900
    }

    final class Dog: Object {
        // Lost its index.
        @Persisted var name: String
        // Renamed from `yearsOld` (by the block), or new.
        @Persisted var age: Int
        @Persisted var owner: Person?
        // Elements optional to required.
        @Persisted var tags: List<String>
    }

    // Cat was removed; Bird is new.
    final class Bird: Object {
        @Persisted var name: String = "tweety"
    }
}

/// A class that gains a primary key.
enum KeyOld {
    final class Item: Object {
        @Persisted var code: Int
        @Persisted var label: String
    }
}

enum KeyNew {
    final class Item: Object {
        @Persisted(primaryKey: true) var code: Int
        @Persisted var label: String
    }
}

/// `Person.name` changes type.
enum TypeChange {
    final class Person: Object {
        @Persisted var name: Int
    }
}

@Suite("Migrations")
struct MigrationTests {
    static let oldTypes: [Object.Type] = [Old.Person.self, Old.Dog.self, Old.Cat.self]
    static let newTypes: [Object.Type] = [New.Person.self, New.Dog.self, New.Bird.self]

    static func configuration(
        _ url: URL, version: UInt64, types: [Object.Type], block: Realm.MigrationBlock? = nil
    ) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    /// A version-1 file: Ana (age nil, two dogs), Bo (age 40), and a cat.
    static func makeOldFile(_ url: URL) throws {
        let realm = try Realm(configuration: configuration(url, version: 1, types: oldTypes))
        try realm.write {
            let ana = realm.create(Old.Person.self, value: ["name": "Ana", "nickname": "A", "born": "1990"])
            let rex = realm.create(Old.Dog.self, value: ["name": "Rex", "yearsOld": 3, "tags": ["good", nil]])
            let fido = realm.create(Old.Dog.self, value: ["name": "Fido", "yearsOld": 5])
            rex.owner = ana
            ana.dogs.append(objectsIn: [rex, fido])
            realm.create(Old.Person.self, value: ["name": "Bo", "age": 40, "born": "1985"])
            realm.create(Old.Cat.self, value: ["name": "Tom"])
        }
    }

    @Test("objects a migration block keeps stay usable after the open: the class infos they point at are kept")
    func objectsKeptFromTheBlock() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("kept.realm")
        try Self.makeOldFile(url)
        nonisolated(unsafe) var keptOld: [MigrationObject] = []
        nonisolated(unsafe) var keptNew: [MigrationObject] = []
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
            migration.enumerateObjects(ofType: "Dog") { old, new in
                new?["age"] = old?["yearsOld"]
                keptOld += [old].compactMap { $0 }
                keptNew += [new].compactMap { $0 }
            }
        })
        // Memory the migration's class infos held is handed out again: a kept object pointing
        // at a freed one read garbage or crashed here.
        let churn = (0..<20_000).map { Array(repeating: $0, count: 8) }
        #expect(churn.count == 20_000)
        #expect(keptNew.map { $0["name"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["Fido", "Rex"])
        #expect(keptNew.map { $0["age"] as? Int }.sorted { ($0 ?? 0) < ($1 ?? 0) } == [3, 5])
        #expect(keptOld.map { $0["yearsOld"] as? Int }.sorted { ($0 ?? 0) < ($1 ?? 0) } == [3, 5])
        try realm.write { keptNew.forEach { $0["age"] = 10 } }
        #expect(realm.objects(New.Dog.self).map(\.age) == [10, 10])
    }

    @Test("objects the block of a failed migration kept are invalidated; its old objects still read the version before")
    func objectsKeptFromAFailedMigration() throws {
        struct Failure: Error {}
        let directory = TemporaryDirectory()
        let url = directory.file("kept-failed.realm")
        try Self.makeOldFile(url)
        nonisolated(unsafe) var keptOld: [MigrationObject] = []
        nonisolated(unsafe) var keptNew: [MigrationObject] = []
        #expect(throws: Failure.self) {
            _ = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
                migration.enumerateObjects(ofType: "Dog") { old, new in
                    new?["age"] = 77
                    keptOld += [old].compactMap { $0 }
                    keptNew += [new].compactMap { $0 }
                }
                throw Failure()
            })
        }
        // Before, the new objects stayed valid and read the rolled-back rows through the new
        // schema: `age` gave the old `yearsOld` (3 and 5).
        #expect(keptNew.count == 2 && keptNew.allSatisfy(\.isInvalidated))
        #expect(keptOld.map { $0["yearsOld"] as? Int }.sorted { ($0 ?? 0) < ($1 ?? 0) } == [3, 5])
        #expect(try schemaVersionAtURL(url) == 1)
        // The failed handle, alive through the kept objects, holds no claim on version 2: the
        // file opens at its own version 1 (before, "already open ... with schema version 2").
        let reopened = try Realm(configuration: Self.configuration(url, version: 1, types: Self.oldTypes))
        #expect(reopened.objects(Old.Dog.self).count == 2)
        withExtendedLifetime((keptOld, keptNew)) {}
    }

    @Test("the schema version is stored in the file and read back by schemaVersionAtURL")
    func versionIsStored() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        #expect(try schemaVersionAtURL(url) == 1)
        _ = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes))
        #expect(try schemaVersionAtURL(url) == 2)
    }

    @Test("schemaVersionAtURL throws for a missing file and for one with no schema yet")
    func versionOfMissingOrUnversionedFile() throws {
        let directory = TemporaryDirectory()
        let missing = #expect(throws: RealmError.self) { try schemaVersionAtURL(directory.file("missing.realm")) }
        #expect(missing?.code == .fileNotFound)
        let url = directory.file()
        _ = try Realm(configuration: Realm.Configuration(fileURL: url))
        let unversioned = #expect(throws: RealmError.self) { try schemaVersionAtURL(url) }
        #expect(unversioned?.code == .fail)
        #expect(unversioned?.message.contains("no schema") == true, "\(unversioned?.message ?? "")")
    }

    @Test("a configuration whose schema version is lower than the file's throws invalidSchemaVersion naming both")
    func lowerVersionThrows() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        _ = try Realm(configuration: Self.configuration(url, version: 5, types: Self.oldTypes))
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: Self.configuration(url, version: 3, types: Self.oldTypes))
        }
        #expect(error?.code == .invalidSchemaVersion)
        #expect(error?.message.contains("5") == true && error?.message.contains("3") == true, "\(error?.message ?? "")")
        #expect(try schemaVersionAtURL(url) == 5)
    }

    @Test("models changed without raising the version: schemaMismatch lists every difference in the models' words, and the file is unchanged")
    func mismatchWithoutNewVersion() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let bytes = try Data(contentsOf: url)
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: Self.configuration(url, version: 1, types: Self.newTypes))
        }
        #expect(error?.code == .schemaMismatch)
        for line in [
            "property 'Person.email' was added", "property 'Person.nickname' was removed",
            "property 'Person.age' changed from Int? to Int", "property 'Person.born' changed from String to Int",
            "property 'Person.name' gained its index", "property 'Dog.name' lost its index",
            "property 'Dog.tags' changed from List<String?> to List<String>", "class 'Cat' was removed",
        ] {
            #expect(error?.message.contains(line) == true, "missing \(line) in \(error?.message ?? "")")
        }
        #expect(error?.message.contains("Bird") == false, "an added class is no difference")
        #expect(try Data(contentsOf: url) == bytes)
        let typeError = #expect(throws: RealmError.self) {
            try Realm(configuration: Self.configuration(url, version: 1, types: [TypeChange.Person.self]))
        }
        #expect(typeError?.message.contains("property 'Person.name' changed from String to Int") == true, "\(typeError?.message ?? "")")
    }

    @Test("raising the version with no block makes the automatic changes")
    func automaticChanges() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes))
        #expect(Set(realm.schema.objectSchema.map(\.className)) == ["Person", "Dog", "Bird"])
        let people = realm.objects(New.Person.self).sorted(byKeyPath: "name")
        #expect(people.map(\.name) == ["Ana", "Bo"])
        // Optional to required: nil became the model's default; a value stayed.
        #expect(people.map(\.age) == [18, 40])
        // Added, and changed type without a block: the default.
        #expect(people.map(\.email) == ["unknown", "unknown"])
        #expect(people.map(\.born) == [1900, 1900])
        #expect(people[0].pets.isEmpty)
        let dogs = realm.objects(New.Dog.self).sorted(byKeyPath: "name")
        #expect(dogs.map(\.name) == ["Fido", "Rex"])
        #expect(dogs.map(\.age) == [0, 0])
        // Links keep their targets; list elements that became required take the zero value.
        #expect(dogs[1].owner?.name == "Ana")
        #expect(Array(dogs[1].tags) == ["good", ""])
        #expect(realm.objects(New.Person.self).filter("name == 'Bo'").count == 1)
        #expect(realm.objects(New.Person.self).where { $0.age > 20 }.map(\.name) == ["Bo"])
        // The index follows the models.
        let snapshot = try realm.snapshot()
        #expect(snapshot.tableIfPresent("class_Person")?.hasIndex(on: 0) == true)
        #expect(snapshot.tableIfPresent("class_Dog")?.hasIndex(on: 0) == false)
        #expect(snapshot.tableIfPresent("class_Cat") == nil)
        #expect(snapshot.tableIfPresent("list_Person.dogs") == nil)
        // Writes work in the new schema.
        try realm.write { realm.add(New.Bird()) }
        #expect(realm.objects(New.Bird.self).first?.name == "tweety")
    }

    @Test("the block renames, converts, creates and deletes, reading old values through oldObject")
    func blockChanges() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, oldVersion in
            #expect(oldVersion == 1)
            #expect(migration.oldSchema["Cat"] != nil && migration.newSchema["Cat"] == nil)
            #expect(migration.newSchema["Person"]?["email"] != nil && migration.oldSchema["Person"]?["email"] == nil)
            migration.renameProperty(onType: "Dog", from: "yearsOld", to: "age")
            migration.renameProperty(onType: "Person", from: "dogs", to: "pets")
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                let born = oldObject!["born"] as! String
                newObject!["born"] = Int(born)!
                if let nickname = oldObject!["nickname"] as? String { newObject!["email"] = "\(nickname)@example.com" }
                // The old schema's values stay readable after the automatic changes.
                #expect((oldObject!["dogs"] as? List<MigrationObject>)?.count == ((oldObject!["name"] as! String) == "Ana" ? 2 : 0))
            }
            var cats: [String] = []
            migration.enumerateObjects(ofType: "Cat") { oldObject, newObject in
                #expect(newObject == nil)
                cats.append(oldObject!["name"] as! String)
            }
            #expect(cats == ["Tom"])
            migration.create("Bird", value: ["name": "Tom's ghost"])
            migration.create("Bird")
            migration.enumerateObjects(ofType: "Dog") { oldObject, newObject in
                if oldObject!["name"] as! String == "Fido" { migration.delete(newObject!) }
            }
        })
        let ana = try #require(realm.objects(New.Person.self).filter("name == 'Ana'").first)
        #expect(ana.born == 1990)
        #expect(ana.email == "A@example.com")
        #expect(ana.pets.map(\.name) == ["Rex"], "the renamed list kept its elements; the deleted dog left it")
        #expect(ana.pets.first?.age == 3, "the renamed property kept its value")
        #expect(realm.objects(New.Person.self).filter("name == 'Bo'").first?.born == 1985)
        #expect(realm.objects(New.Dog.self).count == 1)
        #expect(Set(realm.objects(New.Bird.self).map(\.name)) == ["Tom's ghost", "tweety"])
        #expect(realm.objects(New.Dog.self).filter("age == 3").count == 1)
    }

    @Test("the block runs once, before any handle sees the new schema; opening again does not migrate")
    func blockRunsOnce() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let runs = Mutex(0)
        let configuration = Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
            runs.withLock { $0 += 1 }
            migration.enumerateObjects(ofType: "Person") { _, newObject in newObject!["email"] = "migrated" }
        }
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(runs.withLock { $0 } == 1)
        #expect(second.objects(New.Person.self).allSatisfy { $0.email == "migrated" })
        #expect(first.objects(New.Person.self).count == 2)
        try Realm.performMigration(for: configuration)
        #expect(runs.withLock { $0 } == 1)
    }

    @Test("performMigration migrates the file without keeping a handle")
    func performMigration() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        try Realm.performMigration(for: Self.configuration(url, version: 7, types: Self.newTypes))
        #expect(try schemaVersionAtURL(url) == 7)
    }

    @Test("a new primary key with duplicate values fails the open and leaves the file as it was; a block that makes the values unique succeeds")
    func newPrimaryKey() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let old = try Realm(configuration: Self.configuration(url, version: 0, types: [KeyOld.Item.self]))
            try old.write {
                for (code, label) in [(1, "a"), (2, "b"), (2, "c")] { old.create(KeyOld.Item.self, value: ["code": code, "label": label]) }
            }
        }
        let bytes = try Data(contentsOf: url)
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: Self.configuration(url, version: 1, types: [KeyNew.Item.self]))
        }
        #expect(error?.code == .duplicatePrimaryKey)
        #expect(error?.message.contains("'Item'") == true && error?.message.contains("'code' = 2") == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try schemaVersionAtURL(url) == 0)
        let realm = try Realm(configuration: Self.configuration(url, version: 1, types: [KeyNew.Item.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Item") { oldObject, newObject in
                if oldObject!["label"] as! String == "c" { newObject!["code"] = 3 }
            }
        })
        #expect(realm.object(ofType: KeyNew.Item.self, forPrimaryKey: 3)?.label == "c")
        #expect(realm.object(ofType: KeyNew.Item.self, forPrimaryKey: 2)?.label == "b")
        try realm.write { realm.create(KeyNew.Item.self, value: ["code": 9, "label": "d"]) }
        let duplicate = #expect(throws: RealmError.self) {
            try realm.write { realm.create(KeyNew.Item.self, value: ["code": 9, "label": "e"]) }
        }
        #expect(duplicate?.code == .duplicatePrimaryKey, "the key is unique after the migration")
    }

    struct BlockFailure: Error {}

    @Test("a block that throws fails the open with its error and leaves the file as it was")
    func throwingBlock() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let bytes = try Data(contentsOf: url)
        #expect(throws: BlockFailure.self) {
            try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
                migration.enumerateObjects(ofType: "Person") { _, newObject in newObject!["email"] = "half done" }
                throw BlockFailure()
            })
        }
        #expect(try Data(contentsOf: url) == bytes)
        let old = try Realm(configuration: Self.configuration(url, version: 1, types: Self.oldTypes))
        #expect(old.objects(Old.Person.self).count == 2)
        #expect(old.objects(Old.Cat.self).count == 1)
    }

    @Test("a rename the schemas do not allow fails the migration with a message saying why")
    func invalidRename() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let cases: [(String, String, String, String)] = [
            ("Dog", "missing", "age", "the old schema has no stored property 'missing'"),
            ("Dog", "yearsOld", "nothing", "the new schema has no stored property 'nothing'"),
            ("Dog", "name", "age", "'name' is in both the old and the new schema"),
            ("Person", "dogs", "email", "it would change from List<Dog> to String"),
            ("Cat", "name", "title", "both the old and the new schema must have class 'Cat'"),
        ]
        for (type, from, to, message) in cases {
            let error = #expect(throws: RealmError.self) {
                try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
                    migration.renameProperty(onType: type, from: from, to: to)
                })
            }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
        #expect(try schemaVersionAtURL(url) == 1)
    }

    @Test("deleteData removes every object of a class that stays, and reports classes neither schema has")
    func deleteData() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let results = Mutex<[Bool]>([])
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
            let found = [migration.deleteData(forType: "Dog"), migration.deleteData(forType: "Cat"), migration.deleteData(forType: "Nothing")]
            results.withLock { $0 = found }
        })
        #expect(results.withLock { $0 } == [true, true, false])
        #expect(realm.objects(New.Dog.self).isEmpty)
        #expect(realm.objects(New.Person.self).count == 2)
    }

    @Test("an object the block deleted is not enumerated again, and one it created is not among the old ones, as in RealmSwift")
    func enumerationAfterDeletes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let seen = Mutex<[String: [String]]>([:])
        _ = try Realm(configuration: Self.configuration(url, version: 2, types: Self.newTypes) { migration, _ in
            func names(_ typeName: String) -> [String] {
                var names: [String] = []
                migration.enumerateObjects(ofType: typeName) { _, newObject in names.append(newObject!["name"] as! String) }
                return names
            }
            migration.enumerateObjects(ofType: "Dog") { oldObject, newObject in
                guard oldObject!["name"] as! String == "Rex" else { return }
                migration.delete(newObject!)
                migration.create("Dog", value: ["name": "Spot"])
            }
            let dogs = names("Dog")
            migration.deleteData(forType: "Person")
            migration.create("Person", value: ["name": "Cy"])
            let people = names("Person")
            seen.withLock { $0 = ["Dog": dogs, "Person": people] }
        })
        #expect(seen.withLock { $0 } == ["Dog": ["Fido"], "Person": []])
    }

    enum LinkDefaults {
        final class Tag: Object {
            @Persisted var label = ""
        }

        final class Note: Object {
            @Persisted var text = ""
            @Persisted var tag: Tag? = Tag(value: ["label": "default"])
            @Persisted var tags: List<Tag>
        }
    }

    @Test("in the block, an unmanaged model object set on a link becomes managed itself (given again, it is the same object), and create gives a link the model's default object, as in RealmSwift")
    func linksToModelObjects() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let types: [Object.Type] = [LinkDefaults.Note.self, LinkDefaults.Tag.self]
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 1, types: types))
            try realm.write { realm.create(LinkDefaults.Note.self, value: ["text": "old", "tag": ["label": "a"], "tags": [["label": "b"]]]) }
        }
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: types) { migration, _ in
            migration.enumerateObjects(ofType: "Note") { _, newObject in
                let fresh = LinkDefaults.Tag(value: ["label": "fresh"])
                newObject!["tag"] = fresh
                newObject!["tags"] = [fresh, migration.create("Tag", value: ["label": "made"])]
            }
            migration.create("Note", value: ["text": "new"])
            migration.create("Note", value: ["text": "none", "tag": NSNull()])
        })
        let notes = realm.objects(LinkDefaults.Note.self)
        #expect(notes.map(\.text) == ["old", "new", "none"])
        #expect(notes.map { $0.tag?.label } == ["fresh", "default", nil])
        #expect(notes[0].tags.map(\.label) == ["fresh", "made"] && notes[0].tags[0] == notes[0].tag)
        #expect(realm.objects(LinkDefaults.Tag.self).map(\.label).sorted() == ["a", "b", "default", "fresh", "made"])
    }

    @Test("deleteRealmIfMigrationNeeded deletes the file and the files beside it and opens a new one, but not while the file is open")
    func deleteIfMigrationNeeded() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        var configuration = Self.configuration(url, version: 2, types: Self.newTypes) { _, _ in Issue.record("no migration runs") }
        configuration.deleteRealmIfMigrationNeeded = true
        do {
            let open = try Realm(configuration: Self.configuration(url, version: 1, types: Self.oldTypes))
            let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
            #expect(error?.code == .alreadyOpen)
            #expect(open.objects(Old.Person.self).count == 2)
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.isEmpty)
        #expect(try schemaVersionAtURL(url) == 2)
        try realm.write { realm.add(New.Bird()) }
        // Same version and models: nothing is deleted.
        let again = try Realm(configuration: configuration)
        #expect(again.objects(New.Bird.self).count == 1)
        // A file at a higher version is deleted too, rather than refused.
        var lower = Self.configuration(directory.file("other.realm"), version: 4, types: Self.oldTypes)
        _ = try Realm(configuration: lower)
        lower.schemaVersion = 3
        lower.deleteRealmIfMigrationNeeded = true
        #expect(try Realm(configuration: lower).isEmpty)
    }

    @Test("a realm open in this process cannot be opened with another schema version; in memory too", arguments: RealmKind.allCases)
    func otherVersionWhileOpen(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var configuration = kind.configuration(directory, objectTypes: [Dog.self])
        let open = try Realm(configuration: configuration)
        try open.write { open.add(Dog()) }
        configuration.schemaVersion = 1
        let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
        #expect(error?.code == .invalidSchemaVersion)
        #expect(error?.message.contains("already open") == true, "\(error?.message ?? "")")
        #expect(open.objects(Dog.self).count == 1)
    }

    @Test("an in-memory realm stores its schema version")
    func inMemoryVersion() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: directory.path, schemaVersion: 3, objectTypes: [Dog.self]))
        #expect(try SchemaStore.version(from: realm.snapshot()) == 3)
        let lower = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(inMemoryIdentifier: directory.path, schemaVersion: 2, objectTypes: [Dog.self]))
        }
        #expect(lower?.code == .invalidSchemaVersion)
    }

    @Test("a read-only realm with an older schema version is not migrated")
    func readOnlyOlderVersion() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        var configuration = Self.configuration(url, version: 2, types: Self.newTypes)
        configuration.readOnly = true
        let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
        #expect(error?.code == .readOnly)
        #expect(try schemaVersionAtURL(url) == 1)
        configuration.deleteRealmIfMigrationNeeded = true
        let both = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
        #expect(both?.code == .unsupportedConfiguration)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test("with classes registered on first use, a raised version runs the block over the stored classes")
    func migrationWithoutObjectTypes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try Self.makeOldFile(url)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: "Cat") { _, newObject in newObject!["name"] = "Felix" }
        }))
        #expect(try schemaVersionAtURL(url) == 2)
        #expect(realm.objects(Old.Cat.self).first?.name == "Felix")
        // A model first used afterwards that differs from its stored class cannot be migrated
        // any more: the error says what would have let it be.
        let error = #expect(throws: RealmError.self) { try realm.register(SchemaDiscovery.schema(for: [TypeChange.Person.self])) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("list the model classes in Configuration.objectTypes") == true, "\(error?.message ?? "")")
    }
}
