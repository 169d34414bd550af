import AsyncRealm
import Foundation
import Testing
import TestSupport

// The examples of Docs/Concurrency.md.

actor DogStore {
    private let configuration: Realm.Configuration
    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func add(_ name: String, age: Int) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        try await realm.asyncWrite {
            realm.create(Dog.self, value: ["name": name, "age": age])
        }
    }

    func names() async throws -> [String] {
        let realm = try await Realm(configuration: configuration, actor: self)
        return realm.objects(Dog.self).sorted(byKeyPath: "name").map(\.name)
    }
}

func count(in realm: Realm) -> Int {
    realm.refresh()
    return realm.objects(Dog.self).count
}

func totalAge(of dogs: Results<Dog>) async -> Int {
    let frozen = Frozen(dogs)                        // Sendable
    return await withTaskGroup(of: Int.self) { group in
        for part in 0..<4 {
            group.addTask {
                frozen.value.enumerated().reduce(0) { $0 + ($1.offset % 4 == part ? $1.element.age : 0) }
            }
        }
        return await group.reduce(0, +)
    }
}

actor Vet {
    func examine(_ reference: ThreadSafeReference<Dog>, configuration: Realm.Configuration) async throws -> String? {
        let realm = try await Realm(configuration: configuration, actor: self)
        guard let dog = realm.resolve(reference) else { return nil }
        try await realm.asyncWrite { dog.age += 1 }
        return dog.name
    }
}

@Suite("Docs/Concurrency.md")
struct ConcurrencyGuide {
    @Test("actors writing and reading, refresh, frozen reads in parallel, a thread-safe reference")
    func actors() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self])
        let store = DogStore(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 { group.addTask { try await store.add("dog \(index)", age: index) } }
            try await group.waitForAll()
        }
        #expect(try await store.names().count == 8)

        let realm = try await Realm.open(configuration: configuration)
        #expect(count(in: realm) == 8)
        #expect(await totalAge(of: realm.objects(Dog.self)) == 28)

        let first = try #require(realm.objects(Dog.self).sorted(byKeyPath: "name").first)
        let name = try await Vet().examine(ThreadSafeReference(to: first), configuration: configuration)
        #expect(name == "dog 0")
        realm.refresh()
        #expect(first.age == 1)
    }
}
