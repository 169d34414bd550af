import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

@Suite("Opening realms, schema storage and write transactions")
struct RealmTests {
    @Test("the schema of objectTypes is stored and read back by a realm that lists no types", arguments: RealmKind.allCases)
    func schemaIsStored(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let first = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self]))
        #expect(first.schema.objectSchema.map(\.className) == ["Dog", "Person"])
        let second = try Realm(configuration: kind.configuration(directory))
        #expect(second.schema == first.schema)
        #expect(second.schema["Person"]?.primaryKeyProperty?.name == "id")
        #expect(second.isEmpty)
    }

    @Test("a changed model is a schemaMismatch listing every difference, and the file is not changed")
    func schemaMismatch() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        _ = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [V1.Item.self]))
        let bytes = try Data(contentsOf: url)
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [V2.Item.self]))
        }
        #expect(error?.code == .schemaMismatch)
        for line in ["property 'Item.name' was removed", "property 'Item.title' was added", "property 'Item.count' was added"] {
            #expect(error?.message.contains(line) == true, "\(error?.message ?? "")")
        }
        #expect(try Data(contentsOf: url) == bytes)
        // Adding types is not a mismatch.
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [V1.Item.self, Dog.self]))
        #expect(realm.schema.objectSchema.map(\.className) == ["Dog", "Item", "Person"])
    }

    @Test("a class stored by another handle since this one read the file is checked again under the write lock: conflicting models never both succeed")
    func concurrentConflictingCreate() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        // Opened first: it read the file before the other handle stored its model of Item.
        let late = try Realm(configuration: Realm.Configuration(fileURL: url))
        let first = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [V1.Item.self]))
        let error = #expect(throws: RealmError.self) { try late.register(SchemaDiscovery.schema(for: [V2.Item.self])) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("property 'Item.title' was added") == true, "\(error?.message ?? "")")
        // One model of Item is stored, and a handle opened afresh (on another thread: this
        // one has `late` open) reads objects of it.
        let itemClasses = try onAnotherThread {
            try Realm(configuration: Realm.Configuration(fileURL: url)).schema.objectSchema.filter { $0.className == "Item" }.count
        }
        #expect(itemClasses == 1)
        try first.write { first.add(V1.Item(value: ["id": 1, "name": "one"])) }
        #expect(try onAnotherThread { try Realm(configuration: Realm.Configuration(fileURL: url)).objects(V1.Item.self).count } == 1)
        // The same model registered late is no conflict: nothing is stored twice.
        try late.register(SchemaDiscovery.schema(for: [V1.Item.self]))
        #expect(try SchemaStore.load(from: first.snapshot()).keys.sorted() == ["Item"])
    }

    @Test("a file deleted and created again under its path is a new realm, even while this process still holds the old one")
    func recreatedFile() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [V1.Item.self])
        // Still held, as a handle let go of but not yet freed (a change stream's task) is.
        let old = try Realm(configuration: configuration)
        try old.write { old.add(V1.Item(value: ["id": 1, "name": "old"])) }
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: directory.file().path + suffix) }
        let new = try Realm(configuration: configuration)
        #expect(new.isEmpty)
        try new.write { new.add(V1.Item(value: ["id": 1, "name": "new"])) }
        #expect(try Realm(configuration: configuration).objects(V1.Item.self).map(\.name) == ["new"])
        #expect(old.objects(V1.Item.self).map(\.name) == ["old"])
    }

    @Test("read-only realms: a missing file is fileNotFound, and writing throws at once")
    func readOnly() throws {
        let directory = TemporaryDirectory()
        let missing = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: directory.file("missing.realm"), readOnly: true))
        }
        #expect(missing?.code == .fileNotFound)
        _ = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [V1.Item.self]))
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), readOnly: true))
        #expect(realm.schema["Item"] != nil)
        let writeError = #expect(throws: RealmError.self) { try realm.write {} }
        #expect(writeError?.code == .readOnly)
        #expect(!realm.isInWriteTransaction)
        let addError = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: directory.file(), readOnly: true, objectTypes: [V1.Item.self, Dog.self]))
        }
        #expect(addError?.code == .readOnly)
    }

    @Test("configuration defaults and the fileURL / inMemoryIdentifier exclusion")
    func configurationFields() {
        let configuration = Realm.Configuration()
        #expect(configuration.fileURL?.lastPathComponent == "default.realm")
        #expect(configuration.fileURL?.deletingLastPathComponent().path == FileManager.default.currentDirectoryPath)
        var changed = configuration
        changed.inMemoryIdentifier = "memory"
        #expect(changed.fileURL == nil)
        changed.fileURL = URL(fileURLWithPath: "/tmp/x.realm")
        #expect(changed.inMemoryIdentifier == nil)
        var defaults = Realm.Configuration.defaultConfiguration
        defaults.readOnly = true
        #expect(Realm.Configuration.defaultConfiguration.readOnly == false, "a copy, not the shared default")
    }

    @Test("write returns the block's value, cancels when it throws, and transactions do not nest", arguments: RealmKind.allCases)
    func writeTransactions(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [V1.Item.self]))
        #expect(try realm.write { 42 } == 42)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try realm.write {
                #expect(realm.isInWriteTransaction)
                throw Failure()
            }
        }
        #expect(!realm.isInWriteTransaction)
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        realm.beginWrite()
        try realm.commitWrite()
        #expect(!realm.isInWriteTransaction)
    }

    @Test("a handle sees another handle's commits after refresh and at the start of a write", arguments: RealmKind.allCases)
    func refresh(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let reader = try Realm(configuration: kind.configuration(directory))
        let writer = try Realm(configuration: kind.configuration(directory, objectTypes: [V1.Item.self]))
        #expect(writer.schema["Item"] != nil)
        let before = try reader.snapshot().version
        #expect(reader.schema["Item"] == nil)
        #expect(reader.refresh())
        #expect(try reader.snapshot().version > before)
        #expect(reader.schema["Item"] != nil, "classes another handle stored appear after refresh")
        #expect(!reader.refresh(), "nothing new")
        reader.invalidate()
        #expect(try reader.snapshot().version > before, "the next read takes the newest version")
    }
}
