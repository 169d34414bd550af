import Foundation
import Testing
@testable import AsyncRealm
@testable import StorageEngine
import TestSupport

final class Street: EmbeddedObject {
    @Persisted var name: String
    @Persisted var number: Int
    @Persisted var lamp: Lamp?
}

final class Lamp: EmbeddedObject {
    @Persisted var watts: Int
}

final class Household: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var address: Street?
    @Persisted var previous: List<Street>
    @Persisted var byName: Map<String, Street?>
}

private func street(_ name: String, number: Int = 1, watts: Int? = nil) -> Street {
    let street = Street()
    street.name = name
    street.number = number
    if let watts {
        let lamp = Lamp()
        lamp.watts = watts
        street.lamp = lamp
    }
    return street
}

@Suite("EmbeddedObject")
struct EmbeddedObjectTests {
    private let types: [Object.Type] = [Household.self, Street.self, Lamp.self]

    private func realm(_ name: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "embedded-\(name)", objectTypes: types))
    }

    private func count(_ realm: Realm) -> (streets: Int, lamps: Int) {
        (realm.dynamicObjects("Street").count, realm.dynamicObjects("Lamp").count)
    }

    @Test("embedded objects are added with their parent, through a link, a list and a map, and read back", arguments: RealmKind.allCases)
    func addedWithParent(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        let household = Household()
        household.address = street("Main", number: 1, watts: 60)
        household.previous.append(objectsIn: [street("Old"), street("Older")])
        household.byName["work"] = street("Dock", number: 9)
        try realm!.write { realm!.add(household) }
        #expect(household.address?.realm === realm && household.address?.lamp?.watts == 60)
        #expect(count(realm!) == (4, 1))
        #expect(realm!.schema["Street"]?.isEmbedded == true && realm!.schema["Household"]?.isEmbedded == false)
        if kind == .file {
            realm = nil
            let reopened = try Realm(configuration: kind.configuration(directory, objectTypes: types))
            let read = try #require(reopened.object(ofType: Household.self, forPrimaryKey: 0))
            #expect(read.address?.name == "Main" && read.previous.map(\.name) == ["Old", "Older"] && read.byName["work"]??.number == 9)
            #expect(reopened.schema["Street"]?.isEmbedded == true)
        }
    }

    @Test("deleting the parent deletes its embedded objects, and theirs")
    func cascadeOnDelete() throws {
        let realm = try realm("cascade")
        try realm.write {
            realm.create(Household.self, value: ["id": 1, "address": ["name": "A", "lamp": ["watts": 40]], "previous": [["name": "B"]], "byName": ["c": ["name": "C"]]])
            realm.create(Household.self, value: ["id": 2, "address": ["name": "D"]])
        }
        #expect(count(realm) == (4, 1))
        try realm.write { realm.delete(realm.object(ofType: Household.self, forPrimaryKey: 1)!) }
        #expect(count(realm) == (1, 0))
        try realm.write { realm.delete(realm.objects(Household.self)) }
        #expect(count(realm) == (0, 0))
    }

    @Test("replacing an embedded object, or removing it from its list or map, deletes it")
    func replacementDeletes() throws {
        let realm = try realm("replace")
        let household = Household()
        household.address = street("A", watts: 10)
        household.previous.append(objectsIn: [street("B"), street("C")])
        household.byName["x"] = street("X")
        try realm.write { realm.add(household) }
        let first = household.address!
        try realm.write { household.address = street("A2") }
        #expect(first.isInvalidated && household.address?.name == "A2" && count(realm) == (4, 0))
        try realm.write { household.address = nil }
        #expect(count(realm) == (3, 0))
        try realm.write { household.previous.remove(at: 0) }
        #expect(household.previous.map(\.name) == ["C"] && count(realm) == (2, 0))
        try realm.write { household.byName["x"] = nil }
        #expect(count(realm) == (1, 0))
        try realm.write { household.previous.removeAll() }
        #expect(count(realm) == (0, 0))
        try realm.write { realm.add(Household(value: ["id": 0, "address": ["name": "New"]]), update: .modified) }
        #expect(household.address?.name == "New" && count(realm) == (1, 0))
        try realm.write { realm.add(Household(value: ["id": 0, "address": ["name": "Newer"]]), update: .modified) }
        #expect(household.address?.name == "Newer" && count(realm) == (1, 0), "updating the parent replaced, and deleted, the old one")
    }

    @Test("an embedded object that has a parent cannot be given a second one: the write fails and stores nothing")
    func secondParentFails() throws {
        let realm = try realm("second-parent")
        let first = Household(), second = Household()
        second.id = 1
        first.address = street("Shared")
        try realm.write {
            realm.add(first)
            realm.add(second)
        }
        #expect(throws: RealmError.self) {
            try realm.write { second.address = first.address }
        }
        #expect(second.address == nil && first.address?.name == "Shared" && count(realm) == (1, 0))
        #expect(throws: RealmError.self) {
            try realm.write { second.previous.append(first.address!) }
        }
        #expect(second.previous.isEmpty)
    }

    @Test("queries reach embedded objects through their parent's key paths")
    func queries() throws {
        let realm = try realm("queries")
        try realm.write {
            for id in 0..<4 {
                realm.create(Household.self, value: ["id": id, "address": ["name": "S\(id)", "number": id, "lamp": ["watts": id * 20]],
                                                     "previous": [["name": "P\(id)"]]])
            }
        }
        let households = realm.objects(Household.self)
        #expect(households.filter("address.number >= 2").map(\.id) == [2, 3])
        #expect(households.filter("address.lamp.watts == 20").map(\.id) == [1])
        #expect(households.filter("ANY previous.name == 'P3'").map(\.id) == [3])
        #expect(households.where { $0.address.name == "S0" }.map(\.id) == [0])
        #expect(households.sorted(byKeyPath: "address.number", ascending: false).map(\.id) == [3, 2, 1, 0])
    }

    @Test("a change to an embedded object is a change of its parent")
    func parentObservesChild() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "embedded-changes", objectTypes: types))
        let household = Household()
        household.address = street("A")
        try await realm.asyncWrite { realm.add(household) }
        var changes = household.changes.makeAsyncIterator()
        try await realm.asyncWrite { household.address!.number = 42 }
        guard case .change(_, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["address"])
    }

    @Test("an embedded object freezes, thaws and travels by reference like any object")
    func threadConfinement() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: types)
        let realm = try Realm(configuration: configuration)
        let household = Household()
        household.address = street("A", number: 5)
        try realm.write { realm.add(household) }
        let frozen = household.address!.freeze()
        try realm.write { household.address!.number = 6 }
        #expect(frozen.number == 5 && frozen.thaw()?.number == 6)
        let reference = ThreadSafeReference(to: household.address!)
        let number = try onAnotherThread {
            try Realm(configuration: configuration).resolve(reference)?.number
        }
        #expect(number == 6)
    }

    @Test("an embedded class with a primary key, or in a set, is refused when the realm opens")
    func schemaErrors() throws {
        final class KeyedPart: EmbeddedObject {
            @Persisted(primaryKey: true) var id: Int
        }
        final class SetHolder: Object {
            @Persisted var parts: MutableSet<Lamp>
        }
        #expect(throws: RealmError.self) { try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "embedded-keyed", objectTypes: [KeyedPart.self])) }
        #expect(throws: RealmError.self) { try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "embedded-set", objectTypes: [SetHolder.self, Lamp.self])) }
    }

    @Test("set by name from dictionaries, embedded objects are made in their parent, and the ones they replace are deleted", arguments: RealmKind.allCases)
    func embeddedByName(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Household.self, Street.self, Lamp.self]))
        try realm.write {
            let home = realm.create(Household.self, value: ["id": 1])
            let dynamic = try #require(realm.dynamicObject(ofType: "Household", forPrimaryKey: 1))
            dynamic["address"] = ["name": "Main", "number": 1, "lamp": ["watts": 40]]
            #expect(home.address?.name == "Main" && home.address?.lamp?.watts == 40)
            dynamic["address"] = ["name": "Oak", "number": 2]
            #expect(home.address?.name == "Oak")
            #expect(realm.dynamicObjects("Street").count == 1 && realm.dynamicObjects("Lamp").isEmpty, "the replaced street and its lamp are deleted")
            dynamic["previous"] = [["name": "P1", "number": 3], ["name": "P2", "number": 4]]
            dynamic["previous"] = [["name": "P3", "number": 5]]
            #expect(home.previous.map(\.name) == ["P3"] && realm.dynamicObjects("Street").count == 2)
            dynamic["address"] = nil
            #expect(home.address == nil && realm.dynamicObjects("Street").count == 1)
        }
    }
}

enum EmbeddingV1 {
    final class Owner: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var place: Place?
    }

    final class Place: Object {
        @Persisted var name: String
    }
}

enum EmbeddingV2 {
    final class Owner: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var place: Place?
    }

    final class Place: EmbeddedObject {
        @Persisted var name: String
    }
}

@Suite("Migrating a class to EmbeddedObject")
struct EmbeddingMigrationTests {
    private func makeFile(sharing: Bool) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [EmbeddingV1.Owner.self, EmbeddingV1.Place.self]))
        try realm.write {
            let held = realm.create(EmbeddingV1.Place.self, value: ["name": "held"])
            realm.create(EmbeddingV1.Place.self, value: ["name": "orphan"])
            realm.create(EmbeddingV1.Owner.self, value: ["id": 1, "place": held])
            if sharing { realm.create(EmbeddingV1.Owner.self, value: ["id": 2, "place": held]) }
        }
        return directory
    }

    private func embedded(_ directory: TemporaryDirectory) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [EmbeddingV2.Owner.self, EmbeddingV2.Place.self])
        configuration.schemaVersion = 1
        return configuration
    }

    @Test("objects nothing holds are deleted; the held one becomes its parent's")
    func orphansDeleted() throws {
        let directory = try makeFile(sharing: false)
        let realm = try Realm(configuration: embedded(directory))
        #expect(realm.schema["Place"]?.isEmbedded == true)
        #expect(realm.dynamicObjects("Place").map { $0["name"] as? String } == ["held"])
        #expect(realm.object(ofType: EmbeddingV2.Owner.self, forPrimaryKey: 1)?.place?.name == "held")
    }

    @Test("an object two others hold makes the migration throw, and the file stays as it was")
    func sharedRefused() throws {
        let directory = try makeFile(sharing: true)
        #expect(throws: RealmError.self) { try Realm(configuration: embedded(directory)) }
        let old = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [EmbeddingV1.Owner.self, EmbeddingV1.Place.self]))
        #expect(old.objects(EmbeddingV1.Place.self).count == 2 && old.schema["Place"]?.isEmbedded == false)
    }
}
