import AsyncRealm
import Foundation
import Testing
import TestSupport

// The examples of Docs/GettingStarted.md. Its models are the ones the other guides use.

final class Person: Object {
    @Persisted(primaryKey: true) var id: ObjectId    // a fresh id for each new object
    @Persisted var name: String
    @Persisted var dogs: List<Dog>                    // to-many
}

final class Dog: Object {
    @Persisted(indexed: true) var name: String
    @Persisted var age = 1                            // a default value
    @Persisted var owner: Person?                     // to-one: always optional
    @Persisted(originProperty: "dogs") var people: LinkingObjects<Person>   // the inverse of Person.dogs
}

actor Kennel {
    func admit(_ name: String, configuration: Realm.Configuration) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        try await realm.asyncWrite {
            realm.create(Dog.self, value: ["name": name])
        }
    }
}

nonisolated(nonsending) func watch(_ dogs: Results<Dog>) async {
    for await change in dogs.changes {
        switch change {
        case .initial(let dogs):
            print("\(dogs.count) dogs")
        case .update(let dogs, let deletions, let insertions, let modifications):
            print("\(dogs.count) dogs: -\(deletions.count) +\(insertions.count) ~\(modifications.count)")
        }
    }
}

@Suite("Docs/GettingStarted.md")
struct GettingStartedGuide {
    /// Opens, writes and queries as the guide does; returns the realm.
    static func openWriteQuery(in directory: URL) throws -> Realm {
        let configuration = Realm.Configuration(
            fileURL: directory.appendingPathComponent("dogs.realm"),
            objectTypes: [Person.self, Dog.self])
        let realm = try Realm(configuration: configuration)

        try realm.write {
            let ada = Person(value: ["name": "Ada"])
            ada.dogs.append(Dog(value: ["name": "Rex", "age": 3]))
            realm.add(ada)                                   // adds Rex too
            realm.create(Dog.self, value: ["name": "Bo", "owner": ada])
        }

        let dogs = realm.objects(Dog.self)
        let youngDogs = dogs.where { $0.age < 2 }                 // type-checked
        let rexes = dogs.filter("name BEGINSWITH %@", "R")        // RealmSwift's predicate strings
        let byAge = dogs.sorted(byKeyPath: "age", ascending: false)
        let ada = realm.objects(Person.self).first { $0.name == "Ada" }
        print(youngDogs.count, rexes.first?.name ?? "-", byAge.map(\.name), ada?.dogs.count ?? 0)

        #expect(youngDogs.map(\.name) == ["Bo"])
        #expect(rexes.map(\.name) == ["Rex"])
        #expect(byAge.map(\.name) == ["Rex", "Bo"])
        #expect(ada?.dogs.first?.people.first?.name == "Ada")
        return realm
    }

    @Test("open, write with a link and a list, query; the files beside the realm")
    func openWriteQuery() throws {
        let directory = TemporaryDirectory()
        do {
            let realm = try Self.openWriteQuery(in: directory.url)
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("dogs.realm.lock").path))
            #expect(!realm.isEmpty)
        }
        // Closed: the file holds every commit, and opens again without its log.
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent("dogs.realm.log"))
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("dogs.realm"), objectTypes: [Person.self, Dog.self])
        #expect(try Realm(configuration: configuration).objects(Dog.self).count == 2)
        #expect(try Realm.deleteFiles(for: configuration))
    }

    @Test("an actor's asyncWrite, seen by a change stream")
    func actorAndStream() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("dogs.realm"), objectTypes: [Person.self, Dog.self])
        let realm = try await Realm.open(configuration: configuration)
        var counts: [Int] = []
        for await change in realm.objects(Dog.self).changes {
            switch change {
            case .initial(let dogs):
                counts.append(dogs.count)
                try await Kennel().admit("Rex", configuration: configuration)
            case .update(let dogs, _, let insertions, _):
                counts.append(dogs.count)
                #expect(insertions == [0])
            }
            if counts.count == 2 { break }
        }
        #expect(counts == [0, 1])
        // `watch` runs until its task is cancelled.
        let watching = Task {
            let realm = try await Realm.open(configuration: configuration)
            await watch(realm.objects(Dog.self))
        }
        try await Task.sleep(for: .milliseconds(50))
        watching.cancel()
        _ = await watching.result
    }
}
