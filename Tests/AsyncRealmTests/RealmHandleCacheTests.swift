import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

actor HandleCacheActor {
    func openTwice(_ configuration: Realm.Configuration) async throws -> Bool {
        let first = try await Realm(configuration: configuration, actor: self)
        let second = try await Realm(configuration: configuration, actor: self)
        let third = try await Realm.open(configuration: configuration)
        return first === second && second === third
    }
}

@Suite("One handle per context")
struct RealmHandleCacheTests {
    @Test("Realm(configuration:) twice on one thread gives the same handle, whose objects link across both names")
    func sameThread() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self])
        let first = try Realm(configuration: configuration)
        try first.write { first.add(Dog(value: ["name": "Rex"])) }
        let dog = try #require(first.objects(Dog.self).first)
        let second = try Realm(configuration: configuration)
        #expect(first === second)
        #expect(try Realm(fileURL: directory.file()) !== first, "another configuration (no model classes) is another handle")
        try second.write {
            let person = second.create(Person.self, value: ["id": 1, "name": "Ada"])
            person.dogs.append(dog)
            second.add(dog, update: .modified)
        }
        #expect(first.object(ofType: Person.self, forPrimaryKey: 1)?.dogs.first?.name == "Rex")
        second.beginWrite()
        #expect(first.isInWriteTransaction)
        first.cancelWrite()
    }

    @Test("the handle is shared only while it lives, and only on its thread")
    func lifetimeAndThreads() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Dog.self, Person.self])
        weak var gone: Realm?
        do {
            let realm = try Realm(configuration: configuration)
            gone = realm
        }
        #expect(gone == nil, "the cache does not keep a handle alive")
        let here = try Realm(configuration: configuration)
        let identifier = ObjectIdentifier(here)
        let elsewhere = try onAnotherThread { ObjectIdentifier(try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self, Person.self]))) }
        #expect(elsewhere != identifier)
        #expect(try Realm(configuration: configuration) === here)
    }

    @Test("Realm(configuration:actor:) and Realm.open() twice on one actor give the same handle")
    func sameActor() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self, Person.self])
        #expect(try await HandleCacheActor().openTwice(configuration))
    }
}
