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

    @Test("results keep their handle alive, and with it the class infos they do not count: made from a handle nothing else holds, they count, filter, sort and read")
    func resultsKeepTheirHandle() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self, Person.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for age in 1...10 { realm.add(Dog(value: ["name": "dog \(age)", "age": age])) } }
        }
        weak var handle: Realm?
        let (dogs, dynamicDogs): (Results<Dog>, Results<DynamicObject>) = try {
            let realm = try Realm(configuration: configuration)
            handle = realm
            return (realm.objects(Dog.self), realm.dynamicObjects("Dog"))
        }()
        #expect(handle != nil, "the results keep their handle")
        // Memory of every small size taken and written: a class info freed under the results
        // would be overwritten now.
        let noise = (1...2_000).map { [Int](repeating: -1, count: $0 % 64) }
        #expect(dogs.count == 10)
        #expect(dogs.filter("age > %@", 5).sorted(byKeyPath: "age", ascending: false).map(\.age) == [10, 9, 8, 7, 6])
        #expect(dynamicDogs.count == 10)
        #expect(dynamicDogs.filter("age < 3").count == 2)
        #expect(dogs.freeze().sum(ofProperty: "age") as Int == 55)
        #expect(noise.count == 2_000)
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
