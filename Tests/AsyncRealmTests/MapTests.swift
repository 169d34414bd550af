import Foundation
import Testing
@testable import AsyncRealm
@testable import StorageEngine
import TestSupport

final class Player: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var scores: Map<String, Int>
    @Persisted var notes: Map<String, String?>
    @Persisted var pets: Map<String, Critter?>
}

final class Critter: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "pets") var players: LinkingObjects<Player>
}

private func critter(_ name: String, age: Int = 1) -> Critter {
    let critter = Critter()
    critter.name = name
    critter.age = age
    return critter
}

@Suite("Map")
struct MapTests {
    private let types: [Object.Type] = [Player.self, Critter.self]

    private func realm(_ name: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "map-\(name)", objectTypes: types))
    }

    @Test("an unmanaged map: subscripts, keys in order, values, removal, merge and iteration")
    func unmanaged() {
        let map = Map<String, Int>()
        map["b"] = 2
        map["a"] = 1
        map["c"] = 3
        map["b"] = 20
        #expect(map.count == 3 && map.keys == ["a", "b", "c"] && map.values == [1, 20, 3])
        #expect(map["b"] == 20 && map["z"] == nil && map.contains(key: "a") && !map.contains(key: "z"))
        map["a"] = nil
        map.removeObject(for: "zzz")
        #expect(map.keys == ["b", "c"])
        map.merge(["c": 5, "d": 4]) { current, new in current + new }
        #expect(map.asKeyValueSequence().map { "\($0.key)=\($0.value)" } == ["b=20", "c=8", "d=4"])
        #expect(map.map(\.key) == ["b", "c", "d"] && map.value(forKey: "d") as? Int == 4)
        map.removeAll()
        #expect(map.isEmpty && map.realm == nil && !map.isInvalidated)
    }

    @Test("a managed map stores, updates and removes entries, and reads the same after reopening", arguments: RealmKind.allCases)
    func managed(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        let player = Player()
        player.scores["level 2"] = 200
        player.scores["level 1"] = 100
        try realm!.write { realm!.add(player) }
        #expect(player.scores.keys == ["level 1", "level 2"] && player.scores.realm === realm)
        try realm!.write {
            player.scores["level 3"] = 300
            player.scores["level 1"] = 150
            player.scores["level 2"] = nil
            player.scores.updateValue(7, forKey: "bonus")
        }
        #expect(player.scores.keys == ["bonus", "level 1", "level 3"] && player.scores.values == [7, 150, 300])
        #expect(player.scores["level 1"] == 150 && player.scores["level 2"] == nil && player.scores.count == 3)
        if kind == .file {
            realm = nil
            let reopened = try Realm(configuration: kind.configuration(directory, objectTypes: types))
            let read = try #require(reopened.object(ofType: Player.self, forPrimaryKey: 0))
            #expect(read.scores.keys == ["bonus", "level 1", "level 3"] && read.scores["level 3"] == 300)
            try reopened.write { read.scores.removeAll() }
            #expect(read.scores.isEmpty)
        }
    }

    @Test("a map of optional values stores nil under a key; assigning nil removes the key")
    func optionalValues() throws {
        let realm = try realm("optional")
        let player = Player()
        try realm.write {
            realm.add(player)
            player.notes["a"] = .some(nil)
            player.notes["b"] = "text"
        }
        #expect(player.notes.contains(key: "a") && player.notes["a"] == .some(nil) && player.notes.count == 2)
        try realm.write { player.notes["a"] = nil }
        #expect(!player.notes.contains(key: "a") && player.notes.keys == ["b"])
    }

    @Test("a map of objects adds unmanaged ones, links back, and keeps the key of a deleted object with nil")
    func objects() throws {
        let realm = try realm("objects")
        let player = Player()
        let rex = critter("Rex", age: 3)
        try realm.write {
            realm.add(player)
            player.pets["dog"] = rex
            player.pets["cat"] = critter("Tom", age: 5)
        }
        #expect(rex.realm === realm && realm.objects(Critter.self).count == 2)
        #expect(player.pets["dog"]??.name == "Rex" && rex.players.first?.id == player.id)
        try realm.write { realm.delete(rex) }
        #expect(player.pets.keys == ["cat", "dog"] && player.pets.contains(key: "dog"))
        #expect(player.pets["dog"] == .some(nil) && player.pets["cat"]??.name == "Tom")
        try realm.write { realm.delete(realm.objects(Critter.self)) }
        #expect(player.pets.count == 2 && player.pets.values.allSatisfy { $0 == nil })
    }

    @Test("every map operation agrees with a Swift dictionary under 300 random writes", arguments: RealmKind.allCases)
    func randomOperations(kind: RealmKind) throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        var realm = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        // Keyed by UTF-8 bytes, as the map's keys are: "é" and "e\u{301}" are two keys.
        var expected: [Int: [[UInt8]: Int]] = [0: [:], 1: [:]]
        try realm.write {
            for id in 0..<2 { realm.create(Player.self, value: ["id": id]) }
        }
        let keys = ["a", "b", "c", "d", "é", "e\u{301}", "zz", "key 8"]
        for step in 0..<300 {
            let id = Int.random(in: 0..<2, using: &random)
            let player = try #require(realm.object(ofType: Player.self, forPrimaryKey: id))
            let key = keys.randomElement(using: &random)!
            let value = Int.random(in: -5...5, using: &random)
            try realm.write {
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1, 2: player.scores[key] = value; expected[id]![Array(key.utf8)] = value
                case 3: player.scores[key] = nil; expected[id]![Array(key.utf8)] = nil
                case 4:
                    player.scores.merge([key: value]) { $0 + $1 }
                    expected[id]!.merge([Array(key.utf8): value]) { $0 + $1 }
                default:
                    if Int.random(in: 0..<6, using: &random) == 0 { player.scores.removeAll(); expected[id]!.removeAll() }
                }
            }
            let sortedKeys = expected[id]!.keys.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(player.scores.keys.map { Array($0.utf8) } == sortedKeys, "seed \(seed), step \(step)")
            #expect(player.scores.values == sortedKeys.map { expected[id]![$0]! }, "seed \(seed), step \(step)")
            #expect(player.scores[key] == expected[id]![Array(key.utf8)], "seed \(seed), step \(step)")
            if kind == .file && step % 100 == 99 {
                realm = try Realm(configuration: kind.configuration(directory, objectTypes: types))
            }
        }
    }

    @Test("queries: a key's value, @allKeys (@keys), @allValues (@values), ANY, @count, through objects, and type-checked")
    func queries() throws {
        let realm = try realm("queries")
        try realm.write {
            for id in 0..<4 {
                let player = Player()
                player.id = id
                for level in 0...id { player.scores["l\(level)"] = level * 10 + id }
                player.pets["first"] = critter("pet \(id)", age: id)
                realm.add(player)
            }
        }
        let players = realm.objects(Player.self)
        #expect(players.filter("scores['l1'] > 12").map(\.id) == [3])
        #expect(players.filter("scores['l3'] == nil").map(\.id) == [0, 1, 2])
        #expect(players.filter("ANY scores.@allKeys == 'l2'").map(\.id) == [2, 3])
        #expect(players.filter("ANY scores.@allValues == 22").map(\.id) == [2])
        // Realm's query language also spells them @keys and @values.
        #expect(players.filter("ANY scores.@keys == 'l2'").map(\.id) == [2, 3])
        #expect(players.filter("ANY scores.@values == 22").map(\.id) == [2])
        #expect(players.filter("ANY scores == 3").map(\.id) == [3])
        #expect(players.filter("scores.@count >= 3").map(\.id) == [2, 3])
        #expect(players.filter("pets['first'].age >= 2").map(\.id) == [2, 3])
        #expect(players.filter("ANY pets.name == 'pet 1'").map(\.id) == [1])
        #expect(players.filter("scores.@sum > 30").map(\.id) == [2, 3])
        #expect(players.where { $0.scores["l1"] > 12 }.map(\.id) == [3])
        #expect(players.where { $0.scores.keys == "l2" }.map(\.id) == [2, 3])
        #expect(players.where { $0.scores.values == 22 }.map(\.id) == [2])
        #expect(players.where { $0.scores.count == 1 }.map(\.id) == [0])
        #expect(players.where { $0.scores.contains(3) }.map(\.id) == [3])
        #expect(realm.objects(Critter.self).filter("ANY players.id == 2").map(\.name) == ["pet 2"])
        let pet2 = try #require(realm.objects(Critter.self).first { $0.name == "pet 2" })
        #expect(players.filter("pets['first'] == %@", pet2).map(\.id) == [2])
        #expect(players.filter("pets['other'] == %@", pet2).isEmpty)
        try realm.write {
            players.first!.notes["a"] = "x"
            players.last!.notes["b"] = "x"
        }
        #expect(players.filter("notes['a'] == 'x'").map(\.id) == [0])
        #expect(players.filter("ANY notes == 'x'").map(\.id) == [0, 3])
        #expect(throws: RealmError.self) { try players.filter(RealmPredicate("scores.l1 == 1")) }
        #expect(throws: RealmError.self) { try players.filter(RealmPredicate("id['x'] == 1")) }
    }

    @Test("create(_:value:) and setValue take dictionaries; DynamicObject reads a dictionary; the schema says map")
    func dynamicValues() throws {
        let realm = try realm("dynamic")
        let created = try realm.write {
            realm.create(Player.self, value: ["id": 7, "scores": ["b": 2, "a": 1], "pets": ["p": ["name": "Cy", "age": 3]]])
        }
        #expect(created.scores.keys == ["a", "b"] && created.pets["p"]??.name == "Cy")
        try realm.write { created.setValue(["q": 9], forKey: "scores") }
        #expect(created.scores.keys == ["q"] && created.scores["q"] == 9)
        let dynamic = try #require(realm.dynamicObjects("Player").first)
        // A map read by name is a live Map of its values' type, as in RealmSwift.
        #expect((dynamic["scores"] as? Map<String, Int>)?["q"] == 9)
        try realm.write { dynamic["scores"] = ["r": 1, "s": 2] }
        #expect(created.scores.keys == ["r", "s"])
        let unmanaged = Player(value: ["id": 8, "scores": ["m": 1]])
        #expect(unmanaged.scores["m"] == 1)
        let schema = try #require(realm.schema["Player"])
        #expect(schema["scores"]?.isMap == true && schema["scores"]?.isArray == false)
        #expect(schema["pets"]?.description == "pets: Map<String, Critter?>")
    }

    @Test("a map's change stream reports deleted, inserted and modified keys")
    func changes() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "map-changes", objectTypes: types))
        let player = Player()
        let rex = critter("Rex")
        try await realm.asyncWrite {
            realm.add(player)
            player.scores["a"] = 1
            player.scores["b"] = 2
            player.pets["rex"] = rex
        }
        var scores = player.scores.changes.makeAsyncIterator()
        var pets = player.pets.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await scores.next() else { Issue.record("no initial"); return }
        #expect(initial.count == 2)
        guard case .initial? = await pets.next() else { Issue.record("no initial"); return }
        try await realm.asyncWrite {
            player.scores["a"] = nil
            player.scores["b"] = 3
            player.scores["c"] = 4
        }
        guard case .update(let map, let deletions, let insertions, let modifications)? = await scores.next() else { Issue.record("no update"); return }
        #expect(map.count == 2 && deletions == ["a"] && insertions == ["c"] && modifications == ["b"])
        try await realm.asyncWrite { rex.age = 9 }
        guard case .update(_, let petDeletions, let petInsertions, let petModifications)? = await pets.next() else { Issue.record("no update"); return }
        #expect(petDeletions.isEmpty && petInsertions.isEmpty && petModifications == ["rex"])
    }

    @Test("a frozen map reads its version; thaw and a thread-safe reference give the live one")
    func frozenAndThawed() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: types)
        let realm = try Realm(configuration: configuration)
        let player = Player()
        player.scores["a"] = 1
        try realm.write { realm.add(player) }
        let frozen = player.scores.freeze()
        try realm.write { player.scores["b"] = 2 }
        #expect(frozen.isFrozen && frozen.keys == ["a"] && frozen["b"] == nil)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.keys == ["a", "b"])
        let reference = ThreadSafeReference(to: player.scores)
        let resolved = try onAnotherThread {
            let other = try Realm(configuration: configuration)
            return other.resolve(reference)?.keys ?? []
        }
        #expect(resolved == ["a", "b"])
    }
}
