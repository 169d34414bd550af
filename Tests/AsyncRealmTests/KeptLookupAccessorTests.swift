import Foundation
import Synchronization
import Testing
@testable import AsyncRealm
import TestSupport

/// A lookup by primary key returns the last lookup's object again once its caller has let go
/// of it (`KeptLookupAccessor`), and never one that anything can still see.
@Suite("Lookups by primary key: the last object reused", .serialized)
struct KeptLookupAccessorTests {
    /// Counts the instances made, so that a test can tell a reused accessor from a new one
    /// (a new one can land at the address of the one just freed). One count for the suite,
    /// whose tests therefore run one at a time.
    final class Tally: Object {
        static let made = Mutex(0)
        @Persisted(primaryKey: true) var id: Int
        @Persisted var note: String

        required init() {
            super.init()
            Self.made.withLock { $0 += 1 }
        }
    }

    /// A property that is not stored: its accessors are never reused.
    final class Scribble: Object {
        @Persisted(primaryKey: true) var id: Int
        var scratch = 0
    }

    static func realm(_ kind: RealmKind, in directory: TemporaryDirectory, count: Int = 100) throws -> Realm {
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Tally.self, Scribble.self]))
        try realm.write {
            for id in 1...count { realm.create(Tally.self, value: ["id": id, "note": "note \(id)"]) }
            for id in 1...3 { realm.create(Scribble.self, value: ["id": id]) }
        }
        return realm
    }

    static func made() -> Int { Tally.made.withLock { $0 } }

    @Test("lookups whose objects are dropped make one object, each time reading the row of its own key", arguments: RealmKind.allCases)
    func droppedObjectsAreReused(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, in: directory)
        let before = Self.made()
        for id in (1...100).reversed() {
            let found = try #require(realm.object(ofType: Tally.self, forPrimaryKey: id))
            #expect(found.id == id && found.note == "note \(id)" && !found.isInvalidated && found.realm === realm)
        }
        #expect(Self.made() - before == 1)
        // Between lookups the class keeps it.
        #expect(realm.classInfoOrStop(for: Tally.self).keptLookup.object != nil)
    }

    @Test("an object still held strongly, weakly or unowned is never the next lookup's", arguments: RealmKind.allCases)
    func heldObjectsAreNotReused(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, in: directory)
        var kept: [Tally] = []
        for id in 1...30 {
            let found = try #require(realm.object(ofType: Tally.self, forPrimaryKey: id))
            if id % 2 == 0 { kept.append(found) }
        }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == 15)
        #expect(kept.map(\.id) == Array(stride(from: 2, through: 30, by: 2)))
        #expect(kept.map(\.note) == stride(from: 2, through: 30, by: 2).map { "note \($0)" })
        // A weak or unowned reference is something that could see the change: a new object.
        weak var watched: Tally?
        watched = realm.object(ofType: Tally.self, forPrimaryKey: 40)
        var before = Self.made()
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 41)?.id == 41)
        #expect(Self.made() - before == 1)
        #expect(watched == nil)
        struct UnownedTally { unowned let tally: Tally }
        let held = UnownedTally(tally: try #require(realm.object(ofType: Tally.self, forPrimaryKey: 50)))
        before = Self.made()
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 51)?.id == 51)
        #expect(Self.made() - before == 1)
        withExtendedLifetime(held) {}
    }

    @Test("a reused object reads the version it is returned at, is valid after a delete through it and an invalidate, and a missing key finds nil", arguments: RealmKind.allCases)
    func reusedObjectsFollowTheRealm(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, in: directory)
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 5)?.note == "note 5")
        try realm.write { realm.object(ofType: Tally.self, forPrimaryKey: 6)?.note = "changed" }
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 6)?.note == "changed")
        // Deleted through the object, which is then dropped: the next lookup's object is valid.
        try realm.write {
            let doomed = try #require(realm.object(ofType: Tally.self, forPrimaryKey: 7))
            realm.delete(doomed)
            #expect(doomed.isInvalidated)
        }
        let eight = try #require(realm.object(ofType: Tally.self, forPrimaryKey: 8))
        #expect(!eight.isInvalidated && eight.note == "note 8")
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 7) == nil)
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 1_000) == nil)
        #expect(realm.object(ofType: Tally.self, forPrimaryKey: 9)?.note == "note 9")
        realm.invalidate()
        let ten = try #require(realm.object(ofType: Tally.self, forPrimaryKey: 10))
        #expect(!ten.isInvalidated && ten.note == "note 10")
        // A property that is not stored keeps its value in the object: never reused.
        for id in 1...3 {
            let scribble = try #require(realm.object(ofType: Scribble.self, forPrimaryKey: id))
            #expect(scribble.scratch == 0)
            scribble.scratch = id
        }
    }

    @Test("after lookups whose callers kept every object, lookups whose objects are dropped reuse one again within a retry interval")
    func reuseResumesAfterKeeping() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(.file, in: directory)
        var kept: [Tally] = []
        for id in 1...40 { kept.append(try #require(realm.object(ofType: Tally.self, forPrimaryKey: id))) }
        #expect(kept.map(\.id) == Array(1...40))
        let before = Self.made()
        for id in 41...100 { #expect(realm.object(ofType: Tally.self, forPrimaryKey: id)?.id == id) }
        for id in 1...100 { #expect(realm.object(ofType: Tally.self, forPrimaryKey: id)?.id == id) }
        #expect(Self.made() - before <= KeptLookupAccessor.retryInterval + 1)
        #expect(kept.map(\.note) == (1...40).map { "note \($0)" })
    }
}
