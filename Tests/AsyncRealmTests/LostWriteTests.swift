import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Writes that used to vanish without a word now stop with a message, as in Realm (issue 26,
/// items 9 and 10): each runs in a child process that must stop, saying why.
@Suite("Writes that cannot be stored stop instead of vanishing")
struct LostWriteTests {
    static func printed(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test("setting a property of an object deleted in the same write")
    func setDeleted() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "lost-set-deleted"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write {
                realm.delete(dog)
                dog.age = 5
            }
        }
        #expect(Self.printed(result).contains("this Dog was deleted from its realm or invalidated; check isInvalidated before changing it"), "\(Self.printed(result))")
    }

    @Test("setting a property through a second handle that has not seen the deletion")
    func setDeletedElsewhere() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let configuration = Realm.Configuration(fileURL: directory.file())
            let first = try Realm(configuration: configuration)
            try first.write { first.add(ObjectTests.makeDog("Rex", age: 3)) }
            let second = try Realm(configuration: configuration)
            let seen = try #require(second.objects(Dog.self).first)
            try first.write { first.deleteAll() }
            try second.write { seen.age = 5 }
        }
        #expect(Self.printed(result).contains("this Dog was deleted from its realm or invalidated"), "\(Self.printed(result))")
    }

    @Test("deleting an object twice")
    func deleteTwice() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "lost-delete-twice"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write { realm.delete(dog) }
            try realm.write { realm.delete(dog) }
        }
        #expect(Self.printed(result).contains("deleted from its realm or invalidated already; check isInvalidated before deleting it"), "\(Self.printed(result))")
    }

    @Test("add(_:update:) and create(_:value:update:) updating a class without a primary key")
    func updateWithoutPrimaryKey() async throws {
        let added = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "lost-add-modified"))
            try realm.write { realm.add(Dog(), update: .modified) }
        }
        #expect(Self.printed(added).contains("'Dog' has no primary key, so its objects cannot be added or created with update: .modified"), "\(Self.printed(added))")
        let created = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "lost-create-all"))
            try realm.write { realm.create(Dog.self, value: ["name": "Rex"], update: .all) }
        }
        #expect(Self.printed(created).contains("'Dog' has no primary key"), "\(Self.printed(created))")
    }

    @Test("deleting a list that holds an object twice, or results, deletes each once", arguments: RealmKind.allCases)
    func deleteRepeated(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let rex = ObjectTests.makeDog("Rex", age: 3)
        let person = ObjectTests.makePerson(1, "Ana", dogs: [rex, rex])
        try realm.write { realm.add(person) }
        try realm.write { realm.delete(person.dogs) }
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(rex.isInvalidated)
        try realm.write { realm.add(ObjectTests.makeDog("Bo", age: 1)) }
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age > 0")) }
        #expect(realm.objects(Dog.self).isEmpty)
        // The update policies still update where there is a primary key.
        try realm.write { realm.add(ObjectTests.makePerson(1, "Bo"), update: .modified) }
        #expect(realm.objects(Person.self).map(\.name) == ["Bo"])
    }
}

/// A synchronous write nested in another handle's write on the same file and thread could
/// never start (issue 26, item 14): it stops with a message instead of waiting for ever.
@Suite("Nested writes through two handles")
struct NestedWriteTests {
    @Test("write inside another handle's write on the same thread stops with a message")
    func nestedWrite() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            // Two configurations, so two handles (one configuration would give the same one).
            let first = try Realm(configuration: Realm.Configuration(fileURL: directory.file()))
            let second = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self, Person.self]))
            try first.write { try second.write { second.add(Dog()) } }
        }
        #expect(LostWriteTests.printed(result).contains("already in a write transaction on this thread"), "\(LostWriteTests.printed(result))")
    }

    @Test("writes one after the other, through either handle, on one thread or two, go on working")
    func sequentialWrites() throws {
        let directory = TemporaryDirectory()
        // Three configurations, so three handles (one configuration would give the same one).
        let first = try Realm(configuration: Realm.Configuration(fileURL: directory.file()))
        let second = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self, Person.self]))
        #expect(first !== second)
        try first.write { first.add(Dog()) }
        try second.write { second.add(Dog()) }
        first.beginWrite()
        first.cancelWrite()
        try second.write { second.add(Dog()) }
        // A handle freed inside its write ends its record too.
        do {
            let third = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self]))
            third.beginWrite()
        }
        try first.write { first.add(Dog()) }
        #expect(first.objects(Dog.self).count == 4)
    }
}

/// Errors speak the model's words: class, property and value (issue 26, messages).
@Suite("Messages in the model's words")
struct ModelMessageTests {
    @Test("a duplicate primary key names the class, the property and the value", arguments: RealmKind.allCases)
    func duplicatePrimaryKey(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [V1.Item.self]))
        try realm.write { realm.create(V1.Item.self, value: [1, "first"]) }
        let error = #expect(throws: RealmError.self) { try realm.write { realm.create(V1.Item.self, value: [1, "again"]) } }
        #expect(error?.code == .duplicatePrimaryKey)
        #expect(error?.message == "an object of class 'Item' with primary key 'id' 1 already exists; add it with update: .modified or .all to update that object")
        let otherDirectory = TemporaryDirectory()
        let stringKeyed = try Realm(configuration: kind.configuration(otherDirectory, objectTypes: [StringKeyed.self]))
        try stringKeyed.write { stringKeyed.add(StringKeyed(value: ["key": "a", "note": ""])) }
        let stringError = #expect(throws: RealmError.self) { try stringKeyed.write { stringKeyed.add(StringKeyed(value: ["key": "a", "note": ""])) } }
        #expect(stringError?.message.contains("with primary key 'key' 'a' already exists") == true, "\(stringError?.message ?? "")")
    }

    @Test("creating the first object of a class with a primary key, with update or not", arguments: RealmKind.allCases)
    func createFirst(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [V1.Item.self]))
        try realm.write { realm.create(V1.Item.self, value: [1, "first"], update: .modified) }
        try realm.write { realm.create(V1.Item.self, value: [2, "second"]) }
        #expect(realm.objects(V1.Item.self).count == 2)
        // With no object types named: the class is registered by its first use.
        let otherDirectory = TemporaryDirectory()
        let open = try Realm(configuration: kind.configuration(otherDirectory))
        try open.write { open.create(V1.Item.self, value: [1, "a"]) }
        try open.write { open.create(V1.Item.self, value: ["id": 2, "name": "b"], update: .all) }
        #expect(open.objects(V1.Item.self).count == 2)
        let emptyDirectory = TemporaryDirectory()
        let readOnlyStart = try Realm(configuration: kind.configuration(emptyDirectory))
        #expect(readOnlyStart.object(ofType: V1.Item.self, forPrimaryKey: 1) == nil)
    }

    @Test("results[10] out of range stops with a message naming the index and the count")
    func resultsOutOfRange() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "results-out-of-range"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self)[10]
        }
        #expect(LostWriteTests.printed(result).contains("index 10 is out of bounds for results of 1 'Dog' objects"), "\(LostWriteTests.printed(result))")
    }
}
