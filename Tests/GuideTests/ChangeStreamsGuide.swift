import AsyncRealm
import Foundation
import Testing
import TestSupport

// The examples of Docs/ChangeStreams.md.

nonisolated(nonsending) func follow(_ dogs: Results<Dog>) async {
    for await change in dogs.changes {
        switch change {
        case .initial(let dogs):
            print("showing", dogs.map(\.name))
        case .update(_, let deletions, let insertions, let modifications):
            print("removed rows", deletions, "inserted", insertions, "reloaded", modifications)
        }
    }
}

nonisolated(nonsending) func follow(_ sections: SectionedResults<Int, Dog>) async {
    for await change in sections.changes {
        switch change {
        case .initial(let sections):
            print("ages", sections.allKeys)
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            print(deletions, insertions, modifications, "sections added", sectionsToInsert, "removed", sectionsToDelete)
        }
    }
}

nonisolated(nonsending) func follow(_ dog: Dog) async {
    for await change in dog.changes {
        switch change {
        case .change(_, let properties):
            for property in properties { print(property.name, "is now", property.newValue ?? "nil") }
        case .deleted:
            print("deleted")
        }
    }
}

nonisolated(nonsending) func firstInsertion(in dogs: Results<Dog>) async -> Int? {
    let stream = dogs.changes
    for await change in stream {
        if case .update(_, _, let insertions, _) = change, let first = insertions.first {
            stream.token.invalidate()            // ends the loop; `break` would do here too
            return first
        }
    }
    return nil
}

/// An actor whose realm writes while one of its tasks waits on a stream.
actor StreamsPlayground {
    let configuration: Realm.Configuration
    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func insertionAfterWrite() async throws -> Int? {
        let realm = try await Realm(configuration: configuration, actor: self)
        try await realm.asyncWrite { realm.create(Dog.self, value: ["name": "B"]) }
        // Another actor inserts names that sort first ("A999", "A998", ...) until the loop has
        // seen one: however late this actor starts iterating, an insertion comes after it.
        let writer = Task { [configuration] in
            let store = DogStore(configuration: configuration)
            for index in (0..<1000).reversed() where !Task.isCancelled {
                try await store.add("A\(index)", age: 0)
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { writer.cancel() }
        return await firstInsertion(in: realm.objects(Dog.self).sorted(byKeyPath: "name"))
    }

    func objectChanges() async throws -> [String] {
        let realm = try await Realm(configuration: configuration, actor: self)
        let dog = try await realm.asyncWrite { realm.create(Dog.self, value: ["name": "C"]) }
        var seen: [String] = []
        var iterator = dog.changes.makeAsyncIterator()
        try await realm.asyncWrite { dog.age = 9 }
        if case .change(_, let properties)? = await iterator.next() { seen += properties.map(\.name) }
        try await realm.asyncWrite { realm.delete(dog) }
        if case .deleted? = await iterator.next() { seen.append("deleted") }
        return seen
    }
}

@Suite("Docs/ChangeStreams.md")
struct ChangeStreamsGuide {
    @Test("a collection's insertion, an object's changes and deletion, a stream ended by its token")
    func streams() async throws {
        let directory = TemporaryDirectory()
        let playground = StreamsPlayground(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self]))
        #expect(try await playground.insertionAfterWrite() == 0)
        #expect(try await playground.objectChanges() == ["age", "deleted"])
    }

    @Test("the follow loops end when their task is cancelled")
    func cancelled() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self])
        let loops = Task {
            let realm = try await Realm.open(configuration: configuration)
            let dog = try await realm.asyncWrite { realm.create(Dog.self, value: ["name": "D"]) }
            await follow(realm.objects(Dog.self))
            await follow(dog)
        }
        try await Task.sleep(for: .milliseconds(50))
        loops.cancel()
        _ = await loops.result
    }
}
