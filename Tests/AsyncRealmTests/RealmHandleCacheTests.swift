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

    /// A handle handed to another thread, to be released there.
    private final class Handed: @unchecked Sendable {
        var realm: Realm?
        init(_ realm: Realm) { self.realm = realm }
    }

    @Test("a handle whose deinit has begun on another thread is not handed out, though its entry is still there; once gone, it leaves no entry")
    func deinitRacesLookup() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self])
        let here = Confinement.thread(pthread_self())
        let handed = Handed(try Realm(configuration: configuration))
        #expect(RealmHandleCache.handle(for: configuration, confinement: here) === handed.realm)
        let deinitBegun = DispatchSemaphore(value: 0), goOn = DispatchSemaphore(value: 0), gone = DispatchSemaphore(value: 0)
        let url = directory.file()
        RealmHandleCache.willForget.withLock {
            $0 = { realm in
                guard realm.configuration.fileURL == url else { return }
                deinitBegun.signal()
                goOn.wait()
            }
        }
        defer { RealmHandleCache.willForget.withLock { $0 = nil } }
        Thread {
            handed.realm = nil
            gone.signal()
        }.start()
        deinitBegun.wait()
        #expect(RealmHandleCache.entryCount(forFileAt: directory.file()) == 1)
        #expect(RealmHandleCache.handle(for: configuration, confinement: here) == nil)
        goOn.signal()
        gone.wait()
        #expect(RealmHandleCache.entryCount(forFileAt: directory.file()) == 0)
    }

    @Test("Realm(configuration:actor:) and Realm.open() twice on one actor give the same handle")
    func sameActor() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self, Person.self])
        #expect(try await HandleCacheActor().openTwice(configuration))
    }
}
