import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

extension Pet {
    var initial: String { name.first.map(String.init) ?? "" }
}

/// The parts of a sectioned update, or nil for another element.
func parts<C>(_ change: RealmSectionedResultsChange<C>?) -> (deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath], inserted: [Int], deleted: [Int])? {
    guard case .update(_, let deletions, let insertions, let modifications, let inserted, let deleted)? = change else { return nil }
    return (deletions, insertions, modifications, Array(inserted), Array(deleted))
}

@Suite("Sectioned results' change streams")
struct SectionedChangeStreamTests {
    @Test("insertions, modifications, moves between sections, and sections added and removed, in index paths")
    func updates() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for (id, name) in ["anna", "bob", "bill"].enumerated() { realm.add(Pet(value: ["id": id, "name": name])) }
        }
        let sections = realm.objects(Pet.self).sectioned(by: \.initial)
        var changes = sections.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        #expect(initial.allKeys == ["a", "b"])

        // A new object in a section, and a new section.
        try await realm.asyncWrite {
            realm.add(Pet(value: ["id": 10, "name": "amy"]))
            realm.add(Pet(value: ["id": 11, "name": "cleo"]))
        }
        var update = parts(await changes.next())
        #expect(update?.insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)], "a new section's objects are listed")
        #expect(update?.inserted == [2])
        #expect(update?.deletions == [] && update?.deleted == [] && update?.modifications == [])

        // A property that keeps the key: a modification at the old index path, although a
        // section added before it moves section b from 1 to 2.
        try await realm.asyncWrite {
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.age = 7
            realm.add(Pet(value: ["id": 12, "name": "9lives"]))
        }
        update = parts(await changes.next())
        #expect(update?.modifications == [IndexPath(item: 1, section: 1)], "bob, after bill in section b")
        #expect(update?.inserted == [0])
        #expect(update?.insertions == [IndexPath(item: 0, section: 0)] && update?.deletions == [])
        try await realm.asyncWrite { realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 12)!) }
        #expect(parts(await changes.next())?.deleted == [0])

        // A new key moves the object: out of section b, into section c.
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 2)!.name = "carl" }
        update = parts(await changes.next())
        #expect(update?.deletions == [IndexPath(item: 0, section: 1)])
        #expect(update?.insertions == [IndexPath(item: 0, section: 2)])

        // The last object of a section: the section goes, its objects not listed as removed.
        try await realm.asyncWrite { realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 1)!) }
        update = parts(await changes.next())
        #expect(update?.deleted == [1])
        #expect(update?.deletions == [] && update?.insertions == [] && update?.inserted == [])
        #expect(sections.allKeys == ["a", "c"])
        #expect(sections.map { $0.map(\.name) } == [["amy", "anna"], ["carl", "cleo"]])

        // A commit the sections do not hold: nothing, the next element is the next change.
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 1, "color": "red"])) }
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 0)!.age = 3 }
        #expect(parts(await changes.next())?.modifications == [IndexPath(item: 1, section: 0)])
    }

    /// RealmSwift's own test of a sectioned stream (`testObserveOnQueue`), on this model.
    @Test("RealmSwift's example: a section removed and one added, a renamed object moving, a modification in place")
    func realmSwiftExample() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for (id, name) in ["banana", "box", "apple", "chalk"].enumerated() { realm.add(Pet(value: ["id": id, "name": name])) }
        }
        let sections = realm.objects(Pet.self).sectioned(by: \.initial, ascending: true)
        var changes = sections.changes(keyPaths: ["name"]).makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        #expect(initial.count == 3)
        try await realm.asyncWrite {
            realm.delete([realm.object(ofType: Pet.self, forPrimaryKey: 0)!, realm.object(ofType: Pet.self, forPrimaryKey: 2)!])
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "bog"
            realm.add(Pet(value: ["id": 9, "name": "zebra"]))
        }
        var update = parts(await changes.next())
        #expect(update?.deleted == [0])
        #expect(update?.inserted == [2])
        #expect(update?.deletions == [IndexPath(item: 0, section: 1), IndexPath(item: 1, section: 1)])
        #expect(update?.modifications == [])
        #expect(update?.insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)])
        try await realm.asyncWrite {
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "bogg"
            realm.object(ofType: Pet.self, forPrimaryKey: 3)!.age = 1   // not a key path observed
        }
        update = parts(await changes.next())
        #expect(update?.modifications == [IndexPath(item: 0, section: 0)])
        #expect(update?.deletions == [] && update?.insertions == [] && update?.deleted == [] && update?.inserted == [])
    }

    /// RealmSwift's test of sections' own streams (`testObservationOnSection`), on this model.
    @Test("a section's stream reports its own changes only, at its position before or now")
    func sectionStreams() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for (id, name) in ["banana", "box", "apple", "chalk"].enumerated() { realm.add(Pet(value: ["id": id, "name": name])) }
        }
        let sections = realm.objects(Pet.self).sectioned(by: \.initial, ascending: true)
        var a = sections[0].changes(keyPaths: ["name"]).makeAsyncIterator()
        var b = sections[1].changes(keyPaths: ["name"]).makeAsyncIterator()
        guard case .initial(let initialA)? = await a.next(), case .initial(let initialB)? = await b.next() else {
            Issue.record("no initial elements")
            return
        }
        #expect(initialA.count == 1 && initialB.count == 2)

        try await realm.asyncWrite {
            realm.delete([realm.object(ofType: Pet.self, forPrimaryKey: 0)!, realm.object(ofType: Pet.self, forPrimaryKey: 2)!])
        }
        var update = parts(await a.next())
        #expect(update?.deleted == [0])
        #expect(update?.deletions == [] && update?.insertions == [] && update?.modifications == [] && update?.inserted == [])
        guard case .update(let sectionB, let deletions, let insertions, _, _, _)? = await b.next() else {
            Issue.record("no update of section b")
            return
        }
        #expect(deletions == [IndexPath(item: 0, section: 1)] && insertions == [])
        #expect(sectionB.count == 1 && sectionB.key == "b")

        try await realm.asyncWrite {
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "bog"
            realm.add(Pet(value: ["id": 5, "name": "bag"]))
        }
        update = parts(await b.next())
        #expect(update?.deletions == [IndexPath(item: 0, section: 0)])
        #expect(update?.insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
        #expect(update?.modifications == [] && update?.deleted == [] && update?.inserted == [])

        // Section a comes back; section b, now second, has nothing of its own to report.
        try await realm.asyncWrite { realm.add(Pet(value: ["id": 6, "name": "app"])) }
        update = parts(await a.next())
        #expect(update?.insertions == [IndexPath(item: 0, section: 0)])
        #expect(update?.inserted == [0])
        // Section b's next element covers both commits since its last one (streams coalesce),
        // and names b at its position then: first, before section a came back.
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 5)!.name = "bags" }
        update = parts(await b.next())
        #expect(update?.modifications == [IndexPath(item: 0, section: 0)])
        #expect(update?.insertions == [] && update?.deletions == [] && update?.inserted == [] && update?.deleted == [])
    }
}
