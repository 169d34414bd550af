import Foundation
import Testing
@testable import AsyncRealm
import TestSupport
import StorageEngine

/// Objects whose `Int` primary key gives their row key (`PrimaryKeyRowKey`): found with one
/// row lookup, and still in insertion order, never reusing a key, and found through the index
/// whenever their key is another.
@Suite("Row keys given by Int primary keys")
struct PrimaryKeyRowKeyTests {
    final class Order: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var note: String
        @Persisted var lines: List<Int>
    }

    final class MaybeKeyed: Object {
        @Persisted(primaryKey: true) var id: Int?
        @Persisted var note: String
    }

    static func order(_ id: Int, _ note: String = "") -> Order {
        let order = Order()
        order.id = id
        order.note = note.isEmpty ? "order \(id)" : note
        order.lines.append(objectsIn: [id, id &+ 1])
        return order
    }

    @Test("ids that count up give their objects row keys one past them, across commits, and are found with one row lookup", arguments: RealmKind.allCases)
    func countingIDsGiveRowKeys(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        // Ids from 1000: the first object jumps the keys forward to 1001, the next keys follow.
        try realm.write { for id in 1000..<1500 { realm.add(Self.order(id)) } }
        try realm.write { for id in 1500..<1600 { realm.add(Self.order(id)) } }
        for id in [1000, 1001, 1250, 1499, 1500, 1599] {
            let found = try #require(realm.object(ofType: Order.self, forPrimaryKey: id))
            #expect(found.managed?.key == UInt64(id) + 1)
            #expect(found.note == "order \(id)" && Array(found.lines) == [id, id + 1])
        }
        for missing in [0, 1, 999, 1600, -1] { #expect(realm.object(ofType: Order.self, forPrimaryKey: missing) == nil) }
        #expect(realm.objects(Order.self).map(\.id) == Array(1000..<1600))
    }

    /// A lookup reuses the last lookup's row buffer once nothing holds it
    /// (`ClassInfo.lookupBuffer(in:)`): an object still held must keep its own row.
    @Test("objects looked up in a loop, some kept and some let go, each keep their own row; a long row among them too", arguments: RealmKind.allCases)
    func lookupsKeepTheirRows(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        try realm.write {
            for id in 1...300 { realm.add(Self.order(id, id == 150 ? String(repeating: "long ", count: 400) : "")) }
        }
        var kept: [Order] = []
        for id in 1...300 {
            let found = try #require(realm.object(ofType: Order.self, forPrimaryKey: id))
            #expect(found.id == id)
            if id % 3 == 0 || id == 150 { kept.append(found) }
        }
        let early = try #require(realm.object(ofType: Order.self, forPrimaryKey: 7))
        let late = try #require(realm.object(ofType: Order.self, forPrimaryKey: 8))
        #expect(early.note == "order 7" && late.note == "order 8")
        for order in kept {
            #expect(order.note == (order.id == 150 ? String(repeating: "long ", count: 400) : "order \(order.id)"))
            #expect(Array(order.lines) == [order.id, order.id + 1])
        }
    }

    @Test("ids in any order, negative, far apart or past 2^31 keep insertion order and are all found", arguments: RealmKind.allCases)
    func anyIDsKeepInsertionOrder(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        // Keys: 6 (given), 7 and 8 (next: 3 and 2 are behind), -5 next, a gap past the largest
        // jump, 2^31 and Int.max (no key given), then ids ahead again.
        let ids = [5, 3, 2, -5, 40_000_000, 1 << 31, .max, 12, 13, 11, 100]
        try realm.write { for id in ids { realm.add(Self.order(id)) } }
        #expect(realm.objects(Order.self).map(\.id) == ids, "objects come in the order they were added")
        let keys = realm.objects(Order.self).map { $0.managed!.key }
        #expect(keys == keys.sorted() && Set(keys).count == keys.count)
        #expect(keys.allSatisfy { $0 < 1 << 32 }, "owners' keys stay below 2^32 for their lists' element keys")
        for id in ids {
            let found = try #require(realm.object(ofType: Order.self, forPrimaryKey: id), "\(id)")
            #expect(found.id == id && Array(found.lines) == [id, id &+ 1])
        }
        for missing in [0, 1, 4, 6, 14, 99, 101, 40_000_001] { #expect(realm.object(ofType: Order.self, forPrimaryKey: missing) == nil, "\(missing)") }
    }

    @Test("rows of every length are found whole: short, longer than a lookup's first buffer, in overflow pages; and changed in a write", arguments: RealmKind.allCases)
    func rowsOfEveryLength(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        // A lookup copies a row into a buffer with room for 256 bytes; longer rows are read in
        // place and the buffer grows.
        let lengths = [0, 1, 200, 240, 250, 255, 256, 300, 5000, 100_000]
        let notes = lengths.enumerated().map { index, length in String((0..<length).map { Character(UnicodeScalar(UInt8(97 + ($0 + index) % 26))) }) }
        try realm.write { for (id, note) in notes.enumerated() { realm.add(Self.order(id, note.isEmpty ? "-" : note)) } }
        for (id, note) in notes.enumerated() {
            let found = try #require(realm.object(ofType: Order.self, forPrimaryKey: id))
            #expect(found.note == (note.isEmpty ? "-" : note), "a note of \(note.count) characters")
            #expect(Array(found.lines) == [id, id + 1])
        }
        try realm.write {
            realm.object(ofType: Order.self, forPrimaryKey: 8)?.note = "short now"
            realm.object(ofType: Order.self, forPrimaryKey: 1)?.note = String(repeating: "long ", count: 2000)
            #expect(realm.object(ofType: Order.self, forPrimaryKey: 8)?.note == "short now")
            #expect(realm.object(ofType: Order.self, forPrimaryKey: 1)?.note.count == 10_000)
        }
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 8)?.note == "short now")
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 1)?.note == String(repeating: "long ", count: 2000))
    }

    @Test("random adds, changes and deletes: after each commit every id is found with its note and lines, or not at all", arguments: RealmKind.allCases)
    func randomChanges(kind: RealmKind) throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        var model: [Int: String] = [:]
        // Ids mostly counting up (leaves whose keys are runs), some anywhere; notes of every
        // length, some longer than a lookup's first buffer or than a page.
        var nextID = 0
        func note() -> String {
            let length = [0, 3, 20, 300, 5000].randomElement(using: &random)! + Int.random(in: 0..<8, using: &random)
            return String(repeating: "n", count: length) + "\(Int.random(in: 0..<1000, using: &random))"
        }
        for round in 0..<30 {
            try realm.write {
                for _ in 0..<Int.random(in: 1...150, using: &random) {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<6:
                        let id = Bool.random(using: &random) || model.isEmpty ? nextID : Int.random(in: -50...(nextID + 50), using: &random)
                        if id == nextID { nextID += 1 }
                        guard model[id] == nil else { continue }
                        let text = note()
                        realm.add(Self.order(id, text))
                        model[id] = text
                    case 6..<8:
                        guard let id = model.keys.randomElement(using: &random) else { continue }
                        let text = note()
                        realm.object(ofType: Order.self, forPrimaryKey: id)?.note = text
                        model[id] = text
                    default:
                        guard let id = model.keys.randomElement(using: &random), let object = realm.object(ofType: Order.self, forPrimaryKey: id) else { continue }
                        realm.delete(object)
                        model[id] = nil
                    }
                }
            }
            for id in -60...(nextID + 60) {
                let found = realm.object(ofType: Order.self, forPrimaryKey: id)
                #expect(found?.note == model[id], "seed \(seed), round \(round), id \(id)")
                if let found { #expect(Array(found.lines) == [id, id &+ 1], "seed \(seed), round \(round), id \(id)") }
            }
        }
        #expect(realm.objects(Order.self).count == model.count)
    }

    @Test("a row key taken by another object's next key is not mistaken for the id's own", arguments: RealmKind.allCases)
    func keyHeldByAnotherObject(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        // -1 takes key 1 (the next), -2 key 2, then 1 gives key 2, which is taken: it takes 3.
        try realm.write { for id in [-1, -2, 1, 0] { realm.add(Self.order(id)) } }
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 0)?.id == 0)
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 1)?.id == 1)
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 1)?.managed?.key != 2)
        #expect(realm.objects(Order.self).map(\.id) == [-1, -2, 1, 0])
    }

    @Test("a deleted object's key is never given again: its accessor stays invalidated, its reference resolves to nil", arguments: RealmKind.allCases)
    func deletedKeysAreNotReused(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Order.self]))
        try realm.write { for id in 1...3 { realm.add(Self.order(id)) } }
        let old = try #require(realm.object(ofType: Order.self, forPrimaryKey: 3))
        let reference = ThreadSafeReference(to: old)
        let oldKey = try #require(old.managed?.key)
        try realm.write { realm.delete(old) }
        try realm.write { realm.add(Self.order(3, "again")) }
        #expect(old.isInvalidated)
        let again = try #require(realm.object(ofType: Order.self, forPrimaryKey: 3))
        #expect(again.note == "again" && again.managed!.key > oldKey)
        #expect(realm.resolve(reference) == nil)
        #expect(realm.objects(Order.self).map(\.note) == ["order 1", "order 2", "again"])
    }

    @Test("addOrUpdate and create with update find the object of the id, and optional Int keys (nil among them) are found")
    func updatesAndOptionalKeys() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.file.configuration(directory, objectTypes: [Order.self, MaybeKeyed.self]))
        try realm.write {
            for id in 1...5 { realm.add(Self.order(id)) }
            realm.add(Self.order(3, "updated"), update: .modified)
            realm.create(Order.self, value: ["id": 4, "note": "created"], update: .modified)
            for id in [nil, 0, 7] as [Int?] {
                let object = MaybeKeyed()
                object.id = id
                object.note = "\(id.map(String.init) ?? "nil")"
                realm.add(object)
            }
        }
        #expect(realm.objects(Order.self).map(\.note) == ["order 1", "order 2", "updated", "created", "order 5"])
        #expect(realm.object(ofType: Order.self, forPrimaryKey: 3)?.note == "updated")
        for id in [nil, 0, 7] as [Int?] {
            #expect(realm.object(ofType: MaybeKeyed.self, forPrimaryKey: id)?.note == "\(id.map(String.init) ?? "nil")")
        }
        #expect(realm.object(ofType: MaybeKeyed.self, forPrimaryKey: 8 as Int?) == nil)
        // `NSNull()` stands for the null key, as in RealmSwift's `testOptionalIntPrimaryKey`; a
        // key typed `Any` is read as the key's type.
        #expect(realm.object(ofType: MaybeKeyed.self, forPrimaryKey: NSNull())?.note == "nil")
        #expect(realm.object(ofType: MaybeKeyed.self, forPrimaryKey: 7 as Any)?.note == "7")
    }

    enum Renumbered {
        final class Order: Object {
            @Persisted(primaryKey: true) var id: Int
            @Persisted var note: String
            @Persisted var lines: List<Int>
        }
    }

    @Test("after a migration changes ids, each is found by its new id and none by an old one's key")
    func migratedIDs() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: MigrationTests.configuration(url, version: 0, types: [Order.self]))
            try realm.write { for id in 1...3 { realm.add(Self.order(id)) } }
        }
        // 1 -> 100, 2 -> 1, 3 stays: the row 1 gave (key 2) now holds id 100.
        let realm = try Realm(configuration: MigrationTests.configuration(url, version: 1, types: [Renumbered.Order.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Order") { old, new in
                switch old!["id"] as! Int {
                case 1: new!["id"] = 100
                case 2: new!["id"] = 1
                default: break
                }
            }
        })
        #expect(realm.object(ofType: Renumbered.Order.self, forPrimaryKey: 1)?.note == "order 2")
        #expect(realm.object(ofType: Renumbered.Order.self, forPrimaryKey: 100)?.note == "order 1")
        #expect(realm.object(ofType: Renumbered.Order.self, forPrimaryKey: 2) == nil)
        #expect(realm.object(ofType: Renumbered.Order.self, forPrimaryKey: 3)?.note == "order 3")
    }
}

/// A model whose initialiser looks up another object of its own class, as an initialiser with
/// side effects may: `realm.object(ofType:forPrimaryKey:)` makes its accessor with it.
final class SelfLookingUpOrder: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var note: String
    /// The realm the initialiser looks up object 1 in, and whether a lookup from it is running.
    nonisolated(unsafe) static var realm: Realm?
    nonisolated(unsafe) static var lookingUp = false

    required init() {
        super.init()
        guard let realm = Self.realm, !Self.lookingUp else { return }
        Self.lookingUp = true
        defer { Self.lookingUp = false }
        _ = realm.object(ofType: SelfLookingUpOrder.self, forPrimaryKey: 1)?.note
    }
}

extension PrimaryKeyRowKeyTests {
    @Test("a lookup whose model initialiser looks up another object of the class still reads its own row")
    func initialiserLooksUp() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.file.configuration(directory, objectTypes: [SelfLookingUpOrder.self]))
        try realm.write {
            for (id, note) in [(1, "one"), (2, "two: a longer note than the first one's")] {
                realm.create(SelfLookingUpOrder.self, value: ["id": id, "note": note])
            }
        }
        SelfLookingUpOrder.realm = realm
        defer { SelfLookingUpOrder.realm = nil }
        for _ in 0..<3 {
            let two = try #require(realm.object(ofType: SelfLookingUpOrder.self, forPrimaryKey: 2))
            #expect(two.id == 2 && two.note == "two: a longer note than the first one's")
        }
    }

    /// A lookup reads its row through the leaf its class info's directory last found for the
    /// key (`LeafDirectory`) while that leaf is the one of the version read and still cached:
    /// every write, refresh and eviction must send it back to the tree.
    @Test("lookups by primary key read the version the realm reads, through its own writes, another thread's and evictions", arguments: [64 << 10, 64 << 20])
    func lookupsFollowTheVersion(cacheBytes: Int) throws {
        let directory = TemporaryDirectory()
        var configuration = RealmKind.file.configuration(directory, objectTypes: [Order.self])
        configuration.pageCacheBytes = cacheBytes
        let shared = configuration
        let realm = try Realm(configuration: shared)
        let count = 3_000
        try realm.write { for id in 1...count { realm.add(Self.order(id)) } }
        var expected = (0...count).map { "order \($0)" }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func nextID() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(count)) + 1
        }
        for round in 1...12 {
            for _ in 0..<300 {
                let id = nextID()
                #expect(realm.object(ofType: Order.self, forPrimaryKey: id)?.note == expected[id], "round \(round), id \(id)")
            }
            let changed = (0..<40).map { _ in nextID() }
            if round % 2 == 0 {
                try realm.write {
                    for id in changed { realm.object(ofType: Order.self, forPrimaryKey: id)?.note = "round \(round): \(id)" }
                }
            } else {
                try onAnotherThread {
                    let writer = try Realm(configuration: shared)
                    try writer.write {
                        for id in changed { writer.object(ofType: Order.self, forPrimaryKey: id)?.note = "round \(round): \(id)" }
                    }
                }
                // Still the version before the other thread's write until refreshed.
                for id in changed.prefix(5) where expected[id] != "round \(round): \(id)" {
                    #expect(realm.object(ofType: Order.self, forPrimaryKey: id)?.note == expected[id])
                }
                realm.refresh()
            }
            for id in changed { expected[id] = "round \(round): \(id)" }
            for id in changed { #expect(realm.object(ofType: Order.self, forPrimaryKey: id)?.note == expected[id], "round \(round), id \(id)") }
        }
    }

    /// A class of values only, whose accessors an iteration reuses (`ClassInfo.reusesAccessors`).
    final class Note: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var text: String
    }

    /// Whatever a lookup keeps for the next one (its row buffer; an accessor kept to be returned
    /// again was tried, and held its realm in a cycle) must not keep the realm alive.
    @Test("a realm whose objects looked up by primary key are all let go of is freed with its last handle", arguments: RealmKind.allCases)
    func lookupsLetTheRealmGo(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let configuration = kind.configuration(directory, objectTypes: [Note.self])
        // A frozen handle keeps an in-memory realm's contents, and is not the live handle.
        let keeper = try {
            let setUp = try Realm(configuration: configuration)
            try setUp.write { for id in 1...5 { setUp.create(Note.self, value: ["id": id, "text": "note \(id)"]) } }
            return setUp.freeze()
        }()
        weak var released: Realm?
        do {
            let realm = try Realm(configuration: configuration)
            released = realm
            for id in 1...5 { #expect(realm.object(ofType: Note.self, forPrimaryKey: id)?.text == "note \(id)") }
            for note in realm.objects(Note.self).filter("id > 2") { #expect(note.id > 2) }
        }
        #expect(released == nil, "nothing holds the realm once its objects are gone")
        withExtendedLifetime(keeper) {}
    }
}
