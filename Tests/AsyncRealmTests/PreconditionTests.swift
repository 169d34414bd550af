import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

/// Programmer errors stop the process with a message saying what to do instead. Each runs in
/// a child process (an exit test), which must stop with a failure.
@Suite("Programmer errors stop with a precondition")
struct PreconditionTests {
    @Test("Object(value:) with a value of the wrong type or an unknown key")
    func unmanagedValueErrors() async {
        await #expect(processExitsWith: .failure) {
            _ = Dog(value: ["name": 12])
        }
        await #expect(processExitsWith: .failure) {
            _ = Dog(value: ["nickname": "Rex"])
        }
    }

    @Test("DynamicObject used as a model class stops, saying to read objects by class name")
    func dynamicObjectAsModel() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-dynamic-model", objectTypes: [Dog.self, Person.self]))
            _ = realm.objects(DynamicObject.self).count
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("DynamicObject is no model class; read objects by class name"), "\(printed)")
    }

    @Test("a primary key lookup with a key of another type stops, as RealmSwift's does, naming both types")
    func primaryKeyOfAnotherType() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-key-type", objectTypes: [Dog.self, Person.self]))
            _ = realm.object(ofType: Person.self, forPrimaryKey: "1")
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("String cannot be the primary key of 'Person', which is Int"), "\(printed)")
        // The same key typed `Any`, through the overload that casts it.
        let untyped = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-key-type-any", objectTypes: [Dog.self, Person.self]))
            _ = realm.object(ofType: Person.self, forPrimaryKey: "1" as Any)
        }
        #expect(String(decoding: untyped.standardErrorContent, as: UTF8.self).contains("String cannot be the primary key of 'Person', which is Int"))
    }

    @Test("a migration creating an embedded object on its own stops, saying to set it on its parent")
    func migrationCreatesEmbedded() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let types: [Object.Type] = [Household.self, Street.self, Lamp.self]
            _ = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), schemaVersion: 1, objectTypes: types))
            var configuration = Realm.Configuration(fileURL: directory.file(), schemaVersion: 2, objectTypes: types)
            configuration.migrationBlock = { migration, _ in migration.create("Street", value: ["name": "Main"]) }
            _ = try Realm(configuration: configuration)
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("'Street' is an EmbeddedObject, which cannot be created on its own"), "\(printed)")
    }

    @Test("a Map key that a query could not name stops, saying what keys may be")
    func invalidMapKey() async throws {
        let results = [
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { Map<String, Int>()["a.b"] = 1 },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { Map<String, Int>()["$x"] = 1 },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { Map<String, Int>()[""] = 1 },
        ]
        for result in results {
            let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(printed.contains("cannot be a Map key: keys must not be empty, contain '.' or start with '$'"), "\(printed)")
        }
    }

    @Test("adding or creating an embedded object on its own stops, saying to assign it to its parent")
    func embeddedOnItsOwn() async throws {
        let results = [
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-embedded-add", objectTypes: [Household.self, Street.self, Lamp.self]))
                try realm.write { realm.add(Street()) }
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-embedded-create", objectTypes: [Household.self, Street.self, Lamp.self]))
                try realm.write { realm.create(Street.self, value: ["name": "x"]) }
            },
            // After objects of another class (whose check the adds remember), still checked.
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-embedded-after", objectTypes: [Household.self, Street.self, Lamp.self]))
                try realm.write {
                    realm.add(Household(value: ["id": 1]))
                    realm.add(Household(value: ["id": 2]))
                    realm.add(Street())
                }
            },
        ]
        for result in results {
            let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(printed.contains("'Street' is an EmbeddedObject, which cannot be"), "\(printed)")
            #expect(printed.contains("assign it to a property of the object that holds it"), "\(printed)")
        }
    }

    @Test("changing a managed set or map outside a write transaction names it")
    func collectionOutsideTransaction() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-set", objectTypes: [Tagged.self, Pal.self]))
            let tagged = Tagged()
            try realm.write { realm.add(tagged) }
            tagged.tags.insert("x")
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("cannot change the managed set 'Tagged.tags' outside a write transaction"), "\(printed)")
    }

    @Test("changing a managed object outside a write transaction")
    func writeOutsideTransaction() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-write"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog.age = 5
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-add"))
            realm.add(Dog())
        }
    }

    @Test("using a realm or its objects from another thread")
    func otherThread() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-thread"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            nonisolated(unsafe) let shared = dog
            let thread = Thread { _ = shared.name }
            thread.start()
            usleep(5_000_000)  // the thread stops the process well before this returns
        }
        // An object whose row was just read on its thread, so that the other thread's read
        // finds it current (the one-test path of `Realm.isCurrentHere`).
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-thread-read"))
            try realm.write { realm.add(Dog()) }
            let dog = try #require(realm.objects(Dog.self).first)
            _ = dog.name
            _ = dog.age
            nonisolated(unsafe) let shared = dog
            let thread = Thread { _ = shared.age }
            thread.start()
            usleep(5_000_000)
        }
    }

    @Test("a Migration kept and used after its block stops, saying to call it only inside the block")
    func migrationUsedAfterItsBlock() async throws {
        // Before, `enumerateObjects` went through the old objects with no new ones, a rename did
        // nothing, and `create` and `deleteData` stopped asking for a write transaction.
        let results = [
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let directory = TemporaryDirectory()
                let (_, kept) = try PreconditionTests.openKeepingMigration(in: directory)
                kept.enumerateObjects(ofType: "Dog") { _, _ in }
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let directory = TemporaryDirectory()
                let (_, kept) = try PreconditionTests.openKeepingMigration(in: directory)
                kept.renameProperty(onType: "Dog", from: "name", to: "title")
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let directory = TemporaryDirectory()
                let (_, kept) = try PreconditionTests.openKeepingMigration(in: directory)
                kept.create("Bird", value: ["name": "late"])
            },
        ]
        for result in results {
            let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(printed.contains("this Migration was used after its migration block returned"), "\(printed)")
        }
    }

    /// Opens a version-1 file at version 2 with a block that keeps its `Migration`.
    static func openKeepingMigration(in directory: TemporaryDirectory) throws -> (Realm, Migration) {
        let url = directory.file("kept-migration.realm")
        try MigrationTests.makeOldFile(url)
        nonisolated(unsafe) var kept: Migration?
        let realm = try Realm(configuration: MigrationTests.configuration(url, version: 2, types: MigrationTests.newTypes) { migration, _ in
            kept = migration
        })
        return (realm, try #require(kept))
    }

    @Test("reading a deleted object, with the message that says what to do")
    func deletedObject() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-deleted"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write { realm.delete(dog) }
            _ = dog.name
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("check isInvalidated before using it"), "\(printed)")
    }

    @Test("adding an object whose write was cancelled, or that was deleted")
    func addInvalidated() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-add-cancelled"))
            let dog = Dog()
            realm.beginWrite()
            realm.add(dog)
            realm.cancelWrite()
            try realm.write { realm.add(dog) }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("add a new unmanaged object instead"))
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-add-deleted"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write { realm.delete(dog) }
            try realm.write { realm.add(dog) }
        }
    }

    /// `precondition` and `preconditionFailure` drop their message in optimized builds, which
    /// these tests (built unoptimized) cannot see; `stop` and `require` print it in every build
    /// (see `ProgrammerError.swift`). So the module's sources must not use the standard forms.
    @Test("no programmer error of the library or the engine loses its message in an optimized build", arguments: ["AsyncRealm", "StorageEngine"])
    func messagesSurviveOptimization(module: String) throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 20, "the module's sources were not found at \(sources.path)")
        let standardForms = try Regex(#"\bprecondition(Failure)?\("#)
        for file in files where file.lastPathComponent != "ProgrammerError.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(standardForms) {
                Issue.record("\(file.lastPathComponent):\(number + 1) uses the standard form; use the module's stop and require (ProgrammerError.swift): \(line)")
            }
        }
    }

    @Test("resolving a thread-safe reference twice")
    func resolveTwice() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-resolve"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            let reference = ThreadSafeReference(to: dog)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }
    }

    @Test("writing a frozen realm or object")
    func writeFrozen() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-frozen"))
            try realm.freeze().write {}
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-frozen-object"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            let frozen = dog.freeze()
            try realm.write { frozen.name = "Max" }
        }
    }

    @Test("observing a frozen value")
    func observeFrozen() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-observe-frozen"))
            _ = realm.objects(Dog.self).freeze().changes
        }
    }

    @Test("using an actor-confined realm outside its actor")
    func wrongActor() async {
        await #expect(processExitsWith: .failure) {
            actor Owner {
                func open() async throws -> Int {
                    let realm = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-actor"), actor: self)
                    nonisolated(unsafe) let escaped = realm
                    return await Task.detached { escaped.objects(Dog.self).count }.value
                }
            }
            _ = try await Owner().open()
        }
    }

    @Test("an actor-confined realm read on another actor, and a main-actor one read off the main actor, stop with a message")
    func otherActors() async throws {
        let other = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            /// A realm carried out of its actor on purpose.
            struct Smuggled: @unchecked Sendable { let realm: Realm }
            actor Stranger {
                func count(_ smuggled: Smuggled) -> Int { smuggled.realm.objects(Dog.self).count }
            }
            actor Owner {
                func open() async throws -> Smuggled {
                    Smuggled(realm: try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-other-actor"), actor: self))
                }
            }
            _ = await Stranger().count(try await Owner().open())
        }
        #expect(String(decoding: other.standardErrorContent, as: UTF8.self).contains("this Realm is confined to the actor Owner"))
        let main = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            struct Smuggled: @unchecked Sendable { let realm: Realm }
            @MainActor func open() async throws -> Smuggled {
                Smuggled(realm: try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "precondition-main-actor")))
            }
            let smuggled = try await open()
            _ = await Task.detached { smuggled.realm.objects(Dog.self).count }.value
        }
        #expect(String(decoding: main.standardErrorContent, as: UTF8.self).contains("this Realm is confined to the actor MainActor"))
    }

    @Test("a realm opened in a task with no actor is that task's: read there across suspensions, its handle given back there, stops in another task, and no later task takes its owner's address")
    func taskConfined() async throws {
        nonisolated func openAndRead(_ name: String) async throws -> Int {
            let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: name), isolation: nil)
            if realm.isEmpty { try await realm.asyncWrite { realm.add(ObjectTests.makeDog("Rex", age: 4)) } }
            try await Task.sleep(nanoseconds: 1_000_000)
            let again = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: name), isolation: nil)
            #expect(again === realm, "the same task gets its handle back")
            return realm.objects(Dog.self).map(\.age).reduce(0, +)
        }
        async let first = Task.detached { try await openAndRead("task-confined") }.value
        async let second = Task.detached { try await openAndRead("task-confined") }.value
        let (one, two) = try await (first, second)
        #expect(one >= 4 && two >= 4)
        let other = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            struct Smuggled: @unchecked Sendable { let realm: Realm }
            let (handOver, handing) = AsyncStream<Smuggled>.makeStream()
            // The owning task stays alive meanwhile: a task that ended may leave its address
            // to the next one, which its realm would then take for its owner.
            let owner = Task.detached {
                handing.yield(Smuggled(realm: try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "task-other"), isolation: nil)))
                try await Task.sleep(nanoseconds: 60_000_000_000)
            }
            var received = handOver.makeAsyncIterator()
            guard let smuggled = await received.next() else { return }
            _ = await Task.detached { smuggled.realm.objects(Dog.self).count }.value
            owner.cancel()
        }
        #expect(String(decoding: other.standardErrorContent, as: UTF8.self).contains("this Realm was opened in another task"))
        // The owner has ended while its realm lives: no task after it gets its address, which
        // the realm knows it by. (In a process of its own, as when this was seen: a fresh heap
        // gives a freed task's memory to the next task.)
        await #expect(processExitsWith: .success) {
            struct Smuggled: @unchecked Sendable { let realm: Realm?; let address: Int }
            /// What each task runs, the owner and those after it alike, so that their tasks are
            /// allocated alike: the owner opens the realm, the others only say where they are.
            @Sendable nonisolated func run(opening: Bool) async throws -> Smuggled {
                let realm = opening ? try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "task-ended"), isolation: nil) : nil
                return Smuggled(realm: realm, address: withUnsafeCurrentTask { unsafeBitCast($0!, to: Int.self) })
            }
            let kept = try await Task.detached { try await run(opening: true) }.value
            for _ in 0..<200 where try await Task.detached(operation: { try await run(opening: false) }).value.address == kept.address {
                exit(1)
            }
            withExtendedLifetime(kept.realm) {}
        }
    }

    @Test("an actor-confined realm is read on its actor, and a main-actor one on the main actor, across suspensions")
    func ownActors() async throws {
        actor Owner {
            func readAcrossSuspensions() async throws -> Int {
                let realm = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "own-actor"), actor: self)
                try await realm.asyncWrite { realm.add(ObjectTests.makeDog("Rex")) }
                var total = 0
                for _ in 0..<3 {
                    try await Task.sleep(nanoseconds: 1_000_000)
                    total += realm.objects(Dog.self).map(\.age).reduce(0, +)
                }
                return total
            }
        }
        #expect(try await Owner().readAcrossSuspensions() == 3)
        @MainActor func readOnMain() async throws -> Int {
            let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "own-main-actor"))
            try await realm.asyncWrite { realm.add(ObjectTests.makeDog("Rex", age: 2)) }
            try await Task.sleep(nanoseconds: 1_000_000)
            return realm.objects(Dog.self).first?.age ?? 0
        }
        #expect(try await readOnMain() == 2)
    }
}
