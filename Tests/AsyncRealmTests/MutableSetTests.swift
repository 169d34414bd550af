import Foundation
import Testing
@testable import AsyncRealm
@testable import StorageEngine
import TestSupport

final class Tagged: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: MutableSet<Int?>
    @Persisted var readings: MutableSet<Double>
    @Persisted var friends: MutableSet<Pal>
}

final class Pal: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "friends") var taggedBy: LinkingObjects<Tagged>
}

private func pal(_ name: String, age: Int = 1) -> Pal {
    let pal = Pal()
    pal.name = name
    pal.age = age
    return pal
}

@Suite("MutableSet")
struct MutableSetTests {
    private let types: [Object.Type] = [Tagged.self, Pal.self]

    @Test("an unmanaged set keeps each element once and has the set operations")
    func unmanaged() {
        let set = MutableSet<String>()
        set.insert("a")
        set.insert("b")
        set.insert("a")
        #expect(set.count == 2 && set.contains("a") && !set.contains("c"))
        let other = MutableSet<String>()
        other.insert(objectsIn: ["b", "c"])
        #expect(set.intersects(other) && !set.isSubset(of: other))
        set.formUnion(other)
        #expect(Set(set) == ["a", "b", "c"])
        set.subtract(other)
        #expect(Array(set) == ["a"])
        set.formUnion(other)
        set.formIntersection(other)
        #expect(Set(set) == ["b", "c"] && set.isSubset(of: other))
        set.remove("b")
        set.remove("zzz")
        #expect(Array(set) == ["c"])
        set.removeAll()
        #expect(set.isEmpty && set.realm == nil && !set.isInvalidated)
    }

    @Test("a managed set stores each element once, and reads the same after reopening", arguments: RealmKind.allCases)
    func managed(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        let tagged = Tagged()
        tagged.tags.insert(objectsIn: ["x", "y", "x"])
        try realm!.write { realm!.add(tagged) }
        #expect(tagged.tags.count == 2 && tagged.tags.realm === realm)
        try realm!.write {
            tagged.tags.insert("y")
            tagged.tags.insert("z")
            tagged.tags.remove("x")
            tagged.tags.remove("not there")
            tagged.scores.insert(objectsIn: [1, nil, 1, nil, 2])
        }
        #expect(Set(tagged.tags) == ["y", "z"] && tagged.tags.contains("z") && !tagged.tags.contains("x"))
        #expect(Set(tagged.scores) == [1, nil, 2] && tagged.scores.count == 3)
        if kind == .file {
            realm = nil
            let reopened = try Realm(configuration: kind.configuration(directory, objectTypes: types))
            let read = try #require(reopened.object(ofType: Tagged.self, forPrimaryKey: 0))
            #expect(Set(read.tags) == ["y", "z"] && Set(read.scores) == [1, nil, 2])
        }
    }

    @Test("elements compare as stored: canonically equal strings are two, NaN is one, 0.0 is -0.0")
    func storedEquality() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-equality", objectTypes: types))
        let tagged = Tagged()
        try realm.write {
            realm.add(tagged)
            tagged.tags.insert(objectsIn: ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"])
            tagged.readings.insert(objectsIn: [.nan, .nan, 0.0, -0.0, 1.5])
        }
        #expect(tagged.tags.count == 2)
        #expect(tagged.readings.count == 3 && tagged.readings.contains(.nan) && tagged.readings.contains(-0.0))
        try realm.write { tagged.readings.remove(.nan) }
        #expect(tagged.readings.count == 2 && !tagged.readings.contains(.nan))
    }

    @Test("a set of objects adds unmanaged ones, and forgets a deleted one")
    func objects() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-objects", objectTypes: types))
        let tagged = Tagged()
        let ana = pal("Ana", age: 30), bo = pal("Bo", age: 40)
        try realm.write {
            realm.add(tagged)
            tagged.friends.insert(ana)
            tagged.friends.insert(ana)
            tagged.friends.insert(objectsIn: [bo, ana])
        }
        #expect(tagged.friends.count == 2 && ana.realm === realm && realm.objects(Pal.self).count == 2)
        #expect(tagged.friends.contains(ana) && !tagged.friends.contains(pal("Ana")))
        #expect(ana.taggedBy.count == 1 && ana.taggedBy.first?.id == tagged.id)
        #expect(tagged.friends.sum(ofProperty: "age") as Int == 70)
        #expect(tagged.friends.filter("age > 35").map(\.name) == ["Bo"])
        #expect(tagged.friends.sorted(byKeyPath: "name", ascending: false).map(\.name) == ["Bo", "Ana"])
        try realm.write { realm.delete(ana) }
        #expect(tagged.friends.map(\.name) == ["Bo"])
        try realm.write { tagged.friends.remove(bo) }
        #expect(tagged.friends.isEmpty && realm.objects(Pal.self).count == 1, "removing from a set keeps the object")
    }

    @Test("sets and lists of numbers add up, average and sort, nils left out")
    func valueAggregates() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-aggregates", objectTypes: types))
        let tagged = Tagged()
        try realm.write {
            realm.add(tagged)
            tagged.scores.insert(objectsIn: [4, nil, 2, 6])
            tagged.readings.insert(objectsIn: [1.5, 2.5])
        }
        #expect(tagged.scores.sum() == 12 && tagged.scores.average() == 4.0)
        #expect(tagged.readings.sum() == 4.0 && tagged.readings.sorted(ascending: false) == [2.5, 1.5])
        #expect(MutableSet<Int>().sum() == 0 && (MutableSet<Int>().average() as Double?) == nil)
        let list = List<Int>()
        list.append(objectsIn: [3, 1, 2])
        #expect(list.sum() == 6 && list.sorted(ascending: true) == [1, 2, 3] && list.average() == Float(2))
    }

    @Test("set operations between managed and unmanaged sets", arguments: [false, true])
    func setOperations(otherManaged: Bool) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-operations-\(otherManaged)", objectTypes: types))
        let first = Tagged(), second = Tagged()
        second.id = 1
        first.tags.insert(objectsIn: ["a", "b", "c"])
        second.tags.insert(objectsIn: ["b", "c", "d"])
        try realm.write { realm.add(first) }
        if otherManaged { try realm.write { realm.add(second) } }
        let other = second.tags
        #expect(first.tags.intersects(other) && !first.tags.isSubset(of: other))
        try realm.write { first.tags.formUnion(other) }
        #expect(Set(first.tags) == ["a", "b", "c", "d"])
        try realm.write { first.tags.subtract(other) }
        #expect(Set(first.tags) == ["a"])
        try realm.write { first.tags.insert(objectsIn: ["b", "e"]) }
        try realm.write { first.tags.formIntersection(other) }
        #expect(Set(first.tags) == ["b"] && first.tags.isSubset(of: other))
        // The other way round: an unmanaged or managed set against the managed one.
        #expect(other.isSubset(of: first.tags) == false && other.intersects(first.tags))
    }

    @Test("every set operation agrees with Swift's Set under 300 random writes", arguments: RealmKind.allCases)
    func randomOperations(kind: RealmKind) throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        var realm = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        var expected: [Int: Set<Int?>] = [0: [], 1: []]
        try realm.write {
            for id in 0..<2 { realm.create(Tagged.self, value: ["id": id]) }
        }
        for step in 0..<300 {
            let id = Int.random(in: 0..<2, using: &random)
            let tagged = try #require(realm.object(ofType: Tagged.self, forPrimaryKey: id))
            let value: Int? = Int.random(in: 0..<12, using: &random) == 0 ? nil : Int.random(in: 0..<20, using: &random)
            try realm.write {
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1: tagged.scores.insert(value); expected[id]!.insert(value)
                case 2: tagged.scores.remove(value); expected[id]!.remove(value)
                case 3:
                    let values: [Int?] = (0..<3).map { _ in Int.random(in: 0..<20, using: &random) }
                    let other = MutableSet<Int?>()
                    other.insert(objectsIn: values)
                    tagged.scores.formUnion(other)
                    expected[id]!.formUnion(values)
                case 4:
                    let values: [Int?] = (0..<10).map { _ in Int.random(in: 0..<20, using: &random) }
                    let other = MutableSet<Int?>()
                    other.insert(objectsIn: values)
                    tagged.scores.formIntersection(other)
                    expected[id]!.formIntersection(values)
                default:
                    if Int.random(in: 0..<8, using: &random) == 0 { tagged.scores.removeAll(); expected[id]!.removeAll() }
                }
            }
            #expect(Set(tagged.scores) == expected[id]!, "seed \(seed), step \(step)")
            #expect(tagged.scores.count == expected[id]!.count, "seed \(seed), step \(step)")
            if kind == .file && step % 100 == 99 {
                realm = try Realm(configuration: kind.configuration(directory, objectTypes: types))
            }
        }
        for (id, values) in expected {
            let tagged = try #require(realm.object(ofType: Tagged.self, forPrimaryKey: id))
            #expect(Set(tagged.scores) == values, "seed \(seed)")
            #expect(Set(realm.objects(Tagged.self).filter("scores.@count == %@", values.count).map(\.id)).contains(id))
        }
    }

    @Test("queries: ANY, IN, @count and key paths through a set of objects")
    func queries() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-queries", objectTypes: types))
        try realm.write {
            for id in 0..<4 {
                let tagged = Tagged()
                tagged.id = id
                tagged.tags.insert(objectsIn: (0...id).map { "t\($0)" })
                tagged.friends.insert(pal("pal \(id)", age: id * 10))
                realm.add(tagged)
            }
        }
        let tagged = realm.objects(Tagged.self)
        #expect(tagged.filter("ANY tags == 't2'").map(\.id) == [2, 3])
        #expect(tagged.filter("ANY tags == 't2'").queryPlan == "index on the elements of 'Tagged.tags' (1 value), each owner a match")
        #expect(tagged.filter("ANY tags == 't2' AND id > 2").queryPlan == "index on the elements of 'Tagged.tags' (1 value), then checking each candidate")
        #expect(tagged.filter("ANY tags == 't2' AND id > 2").map(\.id) == [3])
        #expect(tagged.filter("'t3' IN tags").map(\.id) == [3])
        #expect(tagged.filter("tags.@count >= 3").map(\.id) == [2, 3])
        #expect(tagged.filter("ANY friends.age > 15").map(\.id) == [2, 3])
        #expect(tagged.filter("friends.@count == 1").count == 4)
        #expect(tagged.filter("ANY tags IN %@", ["t1", "t9"]).map(\.id) == [1, 2, 3])
        #expect(tagged.where { $0.tags.contains("t1") }.map(\.id) == [1, 2, 3])
        #expect(tagged.where { $0.friends.name == "pal 0" }.map(\.id) == [0])
        #expect(tagged.where { $0.tags.count == 2 }.map(\.id) == [1])
        #expect(realm.objects(Pal.self).filter("ANY taggedBy.id == 3").map(\.name) == ["pal 3"])
        // Doubles have no index on either side: the query scans, and still finds them.
        try realm.write { realm.object(ofType: Tagged.self, forPrimaryKey: 2)!.readings.insert(objectsIn: [1.5, 2.5]) }
        #expect(tagged.filter("ANY readings == 1.5").map(\.id) == [2])
        #expect(tagged.filter("ANY readings IN {2.5, 9.0}").map(\.id) == [2])
        let pal0 = try #require(realm.objects(Pal.self).first { $0.name == "pal 0" })
        #expect(tagged.filter("ANY friends == %@", pal0).map(\.id) == [0])
    }

    @Test("create(_:value:) and setValue take arrays, keeping each element once; DynamicObject reads them")
    func dynamicValues() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "set-dynamic", objectTypes: types))
        let created = try realm.write {
            realm.create(Tagged.self, value: ["id": 7, "tags": ["a", "a", "b"], "friends": [["name": "Cy", "age": 3]]])
        }
        #expect(created.tags.count == 2 && created.friends.first?.name == "Cy")
        try realm.write { created.setValue(["q", "q"], forKey: "tags") }
        #expect(Array(created.tags) == ["q"])
        #expect((created.value(forKey: "tags") as? MutableSet<String>).map(Array.init) == ["q"])
        let dynamic = try #require(realm.dynamicObjects("Tagged").first)
        // A set read by name is a live MutableSet of its values' type, as in RealmSwift.
        #expect((dynamic["tags"] as? MutableSet<String>).map(Array.init) == ["q"])
        #expect((dynamic["friends"] as? MutableSet<DynamicObject>)?.first?["name"] as? String == "Cy")
        let unmanaged = Tagged(value: ["id": 8, "tags": ["m", "m", "n"]])
        #expect(unmanaged.tags.count == 2)
        let schema = try #require(realm.schema["Tagged"])
        #expect(schema["tags"]?.isSet == true && schema["tags"]?.isArray == false)
        #expect(schema["friends"]?.description == "friends: MutableSet<Pal>")
    }

    @Test("a set's change stream reports insertions, deletions and modified objects")
    func changes() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "set-changes", objectTypes: types))
        let tagged = Tagged()
        let ana = pal("Ana")
        try await realm.asyncWrite {
            realm.add(tagged)
            tagged.friends.insert(ana)
        }
        var changes = tagged.friends.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial"); return }
        #expect(initial.count == 1)
        try await realm.asyncWrite { tagged.friends.insert(pal("Bo")) }
        guard case .update(let set, let deletions, let insertions, let modifications)? = await changes.next() else { Issue.record("no update"); return }
        #expect(set.count == 2 && deletions.isEmpty && insertions == [1] && modifications.isEmpty)
        try await realm.asyncWrite { ana.age = 99 }
        guard case .update(_, let deletions2, let insertions2, let modifications2)? = await changes.next() else { Issue.record("no update"); return }
        #expect(deletions2.isEmpty && insertions2.isEmpty && modifications2 == [0])
        try await realm.asyncWrite { tagged.friends.remove(ana) }
        guard case .update(let after, let deletions3, _, _)? = await changes.next() else { Issue.record("no update"); return }
        #expect(after.count == 1 && deletions3.contains(0))
    }

    @Test("a frozen set reads its version; thaw and a thread-safe reference give the live one")
    func frozenAndThawed() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: types)
        let realm = try Realm(configuration: configuration)
        let tagged = Tagged()
        tagged.tags.insert(objectsIn: ["a", "b"])
        try realm.write { realm.add(tagged) }
        let frozen = tagged.tags.freeze()
        try realm.write { tagged.tags.insert("c") }
        #expect(frozen.isFrozen && Set(frozen) == ["a", "b"] && frozen.contains("a") && !frozen.contains("c"))
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && Set(thawed) == ["a", "b", "c"])
        let shared = Frozen(tagged.tags)
        let count = try onAnotherThread { shared.value.count }
        #expect(count == 3)
        let reference = ThreadSafeReference(to: tagged.tags)
        let resolved = try onAnotherThread {
            let other = try Realm(configuration: configuration)
            return other.resolve(reference).map { Array($0).sorted() } ?? []
        }
        #expect(resolved == ["a", "b", "c"])
    }

    @Test("a schema that changes a List to a MutableSet needs a migration, which can convert the values")
    func listToSetMigration() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SetMigrationV1.Bag.self]))
            try realm.write { realm.create(SetMigrationV1.Bag.self, value: ["id": 1, "items": ["a", "b", "a"]]) }
        }
        let unmigrated = Realm.Configuration(fileURL: url, objectTypes: [SetMigrationV2.Bag.self])
        #expect(throws: RealmError.self) { try Realm(configuration: unmigrated) }
        var configuration = unmigrated
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Bag") { old, new in
                new!["items"] = old!["items"]
            }
        }
        let realm = try Realm(configuration: configuration)
        let bag = try #require(realm.objects(SetMigrationV2.Bag.self).first)
        #expect(Set(bag.items) == ["a", "b"] && bag.items.count == 2)
    }
}

enum SetMigrationV1 {
    final class Bag: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var items: List<String>
    }
}

enum SetMigrationV2 {
    final class Bag: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var items: MutableSet<String>
    }
}
