import Foundation
import Testing
@testable import AsyncRealm
import StorageEngine
import TestSupport

/// The indices of an update, or nil for another element.
func indices<C>(_ change: RealmCollectionChange<C>?) -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
    guard case .update(_, let deletions, let insertions, let modifications)? = change else { return nil }
    return (deletions, insertions, modifications)
}

@Suite("Change streams")
struct ChangeStreamTests {
    @Test("the reference's example: a write before the first element is part of the initial one")
    func initialIncludesEarlierWrite() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let pets = realm.objects(Pet.self)
        #expect(pets.count == 0)
        var changes = pets.changes.makeAsyncIterator()
        try await realm.asyncWrite { realm.add(Pet(value: ["id": 1, "name": "Rex"])) }
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        #expect(initial.count == 1)
        // The write is not reported again: the next element is the next write alone.
        try await realm.asyncWrite { realm.add(Pet(value: ["id": 2, "name": "Fido"])) }
        let update = indices(await changes.next())
        #expect(update?.insertions == [1])
        #expect(update?.deletions == [])
    }

    // No time limit: nothing here can wait for ever. The stream is asked for its element only
    // once the new file is known to have a coordinator of its own and the commit is known to
    // be announced; with the old file's coordinator it was not (the old file's newest version
    // was higher), and the test stops at the first `#require` without waiting. (A
    // one-minute limit measured the test's turns on the cooperative pool too, which the
    // CPU-bound tests running beside it held for minutes under ThreadSanitizer.)
    @Test("a file deleted and created again under its path has a coordinator of its own, while the old file's realm is still held")
    func recreatedFile() async throws {
        let directory = TemporaryDirectory()
        let old = try await Realm.open(configuration: directory.configuration)
        for id in 1...5 { try await old.asyncWrite { old.add(Pet(value: ["id": id, "name": "old"])) } }
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: directory.configuration.fileURL!.path + suffix) }
        let new = try await Realm.open(configuration: directory.configuration)
        try #require(new.coordinator !== old.coordinator)
        #expect(try await Realm.open(configuration: directory.configuration).coordinator === new.coordinator)
        var changes = new.objects(Pet.self).changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        #expect(initial.isEmpty)
        // The new file's first versions are older than the old file's newest: with the old
        // file's coordinator, this commit was never announced.
        try await new.asyncWrite { new.add(Pet(value: ["id": 1, "name": "new"])) }
        let committed = try new.snapshot().version
        try #require(new.coordinator.versions.newest >= committed, "the commit was not announced to the file's streams")
        #expect(indices(await changes.next())?.insertions == [0])
        #expect(old.objects(Pet.self).count == 5)
    }

    @Test("commits between two requests arrive as one coalesced update")
    func coalescing() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        var changes = realm.objects(Pet.self).changes.makeAsyncIterator()
        guard case .initial? = await changes.next() else { Issue.record("no initial element"); return }
        for id in 1...3 {
            try await realm.asyncWrite { realm.add(Pet(value: ["id": id, "name": "p\(id)"])) }
        }
        try await realm.asyncWrite { realm.objects(Pet.self).first!.name = "changed" }
        let update = indices(await changes.next())
        // Pet 1 was inserted and modified within the coalesced span: an insertion only.
        #expect(update?.insertions == [0, 1, 2])
        #expect(update?.modifications == [])
        // A commit that touches nothing observed yields nothing: the next element is the
        // modification after it.
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 1, "color": "red"])) }
        try await realm.asyncWrite { realm.objects(Pet.self)[2].age = 4 }
        #expect(indices(await changes.next())?.modifications == [2])
    }

    @Test("sorted results report deletions and modifications at old indices, insertions at new ones, moves as both")
    func sortedIndexRules() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for (id, age) in [(1, 1), (3, 3), (5, 5), (7, 7)] { realm.add(Pet(value: ["id": id, "name": "p\(id)", "age": age])) }
        }
        let sorted = realm.objects(Pet.self).sorted(byKeyPath: "age")
        var changes = sorted.changes.makeAsyncIterator()
        guard case .initial? = await changes.next() else { Issue.record("no initial element"); return }
        try await realm.asyncWrite {
            realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 3)!)
            realm.add(Pet(value: ["id": 4, "name": "p4", "age": 4]))
            realm.object(ofType: Pet.self, forPrimaryKey: 7)!.name = "seven"
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.age = 6
        }
        // Old order 1 3 5 7, new order 4 5 1(age 6) 7.
        let update = indices(await changes.next())
        #expect(update?.deletions == [0, 1])
        #expect(update?.insertions == [0, 2])
        #expect(update?.modifications == [3])
        #expect(sorted.map(\.id) == [4, 5, 1, 7])

        // A modification that keeps the order is a modification, not a move.
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 5)!.age = 5 }
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 5)!.name = "five" }
        let modified = indices(await changes.next())
        #expect(modified?.modifications == [1])
        #expect(modified?.insertions == [])
    }

    @Test("filtered results: objects entering and leaving the filter are insertions and deletions")
    func filteredMembership() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for id in 1...6 { realm.add(Pet(value: ["id": id, "name": "p\(id)", "age": id])) }
        }
        let old = realm.objects(Pet.self).filter("age > 3")
        var changes = old.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        #expect(initial.map(\.id) == [4, 5, 6])
        try await realm.asyncWrite {
            realm.object(ofType: Pet.self, forPrimaryKey: 2)!.age = 10   // enters
            realm.object(ofType: Pet.self, forPrimaryKey: 5)!.age = 0    // leaves
            realm.object(ofType: Pet.self, forPrimaryKey: 6)!.name = "six"
        }
        let update = indices(await changes.next())
        #expect(update?.insertions == [0])
        #expect(update?.deletions == [1])
        #expect(update?.modifications == [2])
    }

    @Test("a change to a linked object is a modification of the objects linking to it, four links deep")
    func linkDepth() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            let toy = Toy(value: ["id": 1, "color": "red"])
            let pet = Pet(value: ["id": 1, "name": "Rex", "toy": toy])
            realm.add(Owner(value: ["id": 1, "name": "Ann", "pets": [pet]]))
            realm.add(Owner(value: ["id": 2, "name": "Bob"]))
        }
        var owners = realm.objects(Owner.self).changes.makeAsyncIterator()
        var names = realm.objects(Owner.self).changes(keyPaths: ["name"]).makeAsyncIterator()
        var toyColors = realm.objects(Owner.self).changes(keyPaths: ["pets.toy.color"]).makeAsyncIterator()
        for _ in 0..<1 {
            guard case .initial? = await owners.next(), case .initial? = await names.next(), case .initial? = await toyColors.next() else {
                Issue.record("no initial element"); return
            }
        }
        try await realm.asyncWrite { realm.object(ofType: Toy.self, forPrimaryKey: 1)!.color = "blue" }
        // Owner -> pets -> toy: two links; the owner of the toy's pet is modified.
        #expect(indices(await owners.next())?.modifications == [0])
        #expect(indices(await toyColors.next())?.modifications == [0])
        // The stream watching only names gets the next name change, not the colour.
        try await realm.asyncWrite { realm.object(ofType: Owner.self, forPrimaryKey: 2)!.name = "Bobby" }
        #expect(indices(await names.next())?.modifications == [1])
        #expect(indices(await owners.next())?.modifications == [1])
        // Adding a pet to a list is a change of the list's owner.
        try await realm.asyncWrite {
            realm.object(ofType: Owner.self, forPrimaryKey: 2)!.pets.append(Pet(value: ["id": 2, "name": "Kit"]))
        }
        #expect(indices(await owners.next())?.modifications == [1])
        // A colour change of a toy no owner reaches changes no owner.
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 2, "color": "green"])) }
        try await realm.asyncWrite { realm.object(ofType: Toy.self, forPrimaryKey: 2)!.color = "black" }
        try await realm.asyncWrite { realm.object(ofType: Owner.self, forPrimaryKey: 1)!.name = "Anne" }
        #expect(indices(await owners.next())?.modifications == [0])
    }

    @Test("links are followed exactly four deep by default, and as deep as a key path says")
    func exactLinkDepth() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        // 1 -> 2 -> 3 -> 4 -> 5 -> 6: object 5 is four links from 1, object 6 five.
        try await realm.asyncWrite {
            var next: Chain?
            for id in (1...6).reversed() {
                let link = realm.create(Chain.self, value: ["id": id, "value": 0])
                link.next = next
                next = link
            }
        }
        let all = realm.objects(Chain.self).sorted(byKeyPath: "id")
        var changes = all.changes.makeAsyncIterator()
        var deep = realm.objects(Chain.self).filter("id == 1").changes(keyPaths: ["next.next.next.next.next.value"]).makeAsyncIterator()
        var object = realm.object(ofType: Chain.self, forPrimaryKey: 1)!.changes.makeAsyncIterator()
        guard case .initial? = await changes.next(), case .initial? = await deep.next() else { Issue.record("no initial"); return }
        try await realm.asyncWrite { realm.object(ofType: Chain.self, forPrimaryKey: 6)!.value = 1 }
        // Object 6 itself and the four before it (2...5) are modified; object 1, five links
        // away, is not. The key path reaches five links, so its stream reports object 1.
        #expect(indices(await changes.next())?.modifications == [1, 2, 3, 4, 5])
        #expect(indices(await deep.next())?.modifications == [0])
        try await realm.asyncWrite { realm.object(ofType: Chain.self, forPrimaryKey: 5)!.value = 1 }
        #expect(indices(await changes.next())?.modifications == [0, 1, 2, 3, 4])
        guard case .change(_, let properties)? = await object.next() else { Issue.record("no object change"); return }
        #expect(properties.map(\.name) == ["next"])
        try await realm.asyncWrite { realm.object(ofType: Chain.self, forPrimaryKey: 6)!.value = 2 }
        try await realm.asyncWrite { realm.object(ofType: Chain.self, forPrimaryKey: 1)!.value = 2 }
        guard case .change(_, let own)? = await object.next() else { Issue.record("no object change"); return }
        #expect(own.map(\.name) == ["value"], "the change five links away was not reported")
    }

    @Test("write(withoutNotifying:) leaves the write out of that stream only")
    func withoutNotifying() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let quiet = realm.objects(Pet.self).changes
        let loud = realm.objects(Pet.self).changes
        var quietChanges = quiet.makeAsyncIterator()
        var loudChanges = loud.makeAsyncIterator()
        guard case .initial? = await quietChanges.next(), case .initial? = await loudChanges.next() else { Issue.record("no initial"); return }
        try realm.write(withoutNotifying: [quiet.token]) { realm.add(Pet(value: ["id": 1, "name": "a"])) }
        try await realm.asyncWrite { realm.add(Pet(value: ["id": 2, "name": "b"])) }
        #expect(indices(await quietChanges.next())?.insertions == [1])
        #expect(indices(await loudChanges.next())?.insertions == [0, 1])

        // Changes made before a skipped write are still reported, then the write is left out.
        try await realm.asyncWrite { realm.add(Pet(value: ["id": 3, "name": "c"])) }
        try await realm.asyncWrite(withoutNotifying: [quiet.token]) { realm.add(Pet(value: ["id": 4, "name": "d"])) }
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 4)!.name = "dd" }
        #expect(indices(await quietChanges.next())?.insertions == [2])
        #expect(indices(await quietChanges.next())?.modifications == [3])

        // commitWrite(withoutNotifying:) works as well.
        realm.beginWrite()
        realm.add(Pet(value: ["id": 5, "name": "e"]))
        try realm.commitWrite(withoutNotifying: [quiet.token])
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "aa" }
        #expect(indices(await quietChanges.next())?.modifications == [0])
    }

    @Test("commitWrite(withoutNotifying:) after a plain beginWrite() skips that write only, when another handle committed before it")
    func withoutNotifyingAfterOtherCommit() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let quiet = realm.objects(Pet.self).changes
        var quietChanges = quiet.makeAsyncIterator()
        guard case .initial? = await quietChanges.next() else { Issue.record("no initial"); return }
        // Another handle commits; this handle has not advanced (its stream has not pulled).
        let other = try await Realm.open(configuration: directory.configuration)
        try await other.asyncWrite { other.add(Pet(value: ["id": 1, "name": "other"])) }
        realm.beginWrite()
        realm.add(Pet(value: ["id": 2, "name": "skipped"]))
        try realm.commitWrite(withoutNotifying: [quiet.token])
        try await realm.asyncWrite { realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "changed" }
        // The other handle's insertion, then the modification; never the skipped insertion.
        let first = indices(await quietChanges.next())
        #expect(first?.insertions == [0], "\(String(describing: first))")
        let next = indices(await quietChanges.next())
        #expect(next?.insertions == [] && next?.modifications == [0], "\(String(describing: next))")
    }

    @Test("streams end when the token is invalidated, the task is cancelled, or the realm is invalidated")
    func streamsEnd() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        // Token: a consumer waiting for the next element gets nil.
        let stream = realm.objects(Pet.self).changes
        var iterator = stream.makeAsyncIterator()
        guard case .initial? = await iterator.next() else { Issue.record("no initial"); return }
        let token = stream.token
        Task { try await Task.sleep(for: .milliseconds(50)); token.invalidate() }
        #expect(await iterator.next() == nil)

        // Invalidating the realm ends its streams.
        var second = realm.changes.makeAsyncIterator()
        realm.invalidate()
        #expect(await second.next() == nil)

        // Cancelling the consuming task ends the stream it iterates.
        // (Cancelled once it iterates: a task cancelled while it opens its realm throws.)
        let configuration = directory.configuration
        let iterating = Locked(false)
        let consumer = Task {
            let realm = try await Realm.open(configuration: configuration)
            var count = 0
            for await _ in realm.objects(Pet.self).changes {
                count += 1
                iterating.withLock { $0 = true }
            }
            return count
        }
        while !iterating.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        consumer.cancel()
        #expect(try await consumer.value == 1)
    }

    @Test("object streams report changed properties with old and new values, then .deleted, then end")
    func objectStream() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let pet = try await realm.asyncWrite { realm.create(Pet.self, value: ["id": 1, "name": "Rex", "age": 2]) }
        var changes = pet.changes.makeAsyncIterator()
        var ages = pet.changes(keyPaths: ["age"]).makeAsyncIterator()
        try await realm.asyncWrite { pet.name = "Max" }
        guard case .change(let object, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(object.isSameObject(as: pet))
        #expect(properties.map(\.name) == ["name"])
        #expect(properties.first?.oldValue as? String == "Rex")
        #expect(properties.first?.newValue as? String == "Max")
        try await realm.asyncWrite { pet.age = 3 }
        guard case .change(_, let ageChanges)? = await ages.next() else { Issue.record("no change"); return }
        #expect(ageChanges.map(\.name) == ["age"])
        #expect(ageChanges.first?.oldValue as? Int == 2)
        _ = await changes.next()
        try await realm.asyncWrite { pet.toy = Toy(value: ["id": 1, "color": "red"]) }
        try await realm.asyncWrite { pet.toy!.color = "blue" }
        guard case .change(_, let linked)? = await changes.next() else { Issue.record("no change"); return }
        #expect(linked.map(\.name) == ["toy"])
        try await realm.asyncWrite { realm.delete(pet) }
        guard case .deleted? = await changes.next() else { Issue.record("no deletion"); return }
        #expect(await changes.next() == nil)
    }

    @Test("list streams report element changes and modified elements")
    func listStream() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let owner = try await realm.asyncWrite {
            realm.create(Owner.self, value: ["id": 1, "name": "Ann", "pets": [["id": 1, "name": "a"], ["id": 2, "name": "b"]], "tags": ["x"]])
        }
        var pets = owner.pets.changes.makeAsyncIterator()
        var tags = owner.tags.changes.makeAsyncIterator()
        guard case .initial? = await pets.next(), case .initial? = await tags.next() else { Issue.record("no initial"); return }
        try await realm.asyncWrite {
            owner.pets.append(Pet(value: ["id": 3, "name": "c"]))
            owner.pets[0].name = "A"
        }
        let update = indices(await pets.next())
        #expect(update?.insertions == [2])
        #expect(update?.modifications == [0])
        try await realm.asyncWrite { owner.tags.insert("w", at: 0) }
        #expect(indices(await tags.next())?.insertions == [0])
        try await realm.asyncWrite { owner.pets.remove(at: 1) }
        #expect(indices(await pets.next())?.deletions == [1])
        // The owner's deletion deletes the list: every element goes, and the stream ends.
        try await realm.asyncWrite { realm.delete(owner) }
        #expect(indices(await tags.next())?.deletions == [0, 1])
        #expect(await tags.next() == nil)
    }

    @Test("linking objects streams follow objects starting and stopping to link")
    func linkingObjectsStream() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let pet = try await realm.asyncWrite { realm.create(Pet.self, value: ["id": 1, "name": "a", "age": 1]) }
        var owners = pet.owners.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await owners.next() else { Issue.record("no initial"); return }
        #expect(initial.isEmpty)
        try await realm.asyncWrite { realm.create(Owner.self, value: ["id": 1, "name": "Ann", "pets": [pet]]) }
        #expect(indices(await owners.next())?.insertions == [0])
        try await realm.asyncWrite { realm.object(ofType: Owner.self, forPrimaryKey: 1)!.name = "Anne" }
        #expect(indices(await owners.next())?.modifications == [0])
        try await realm.asyncWrite { realm.object(ofType: Owner.self, forPrimaryKey: 1)!.pets.removeAll() }
        #expect(indices(await owners.next())?.deletions == [0])
    }

    @Test("realm.changes yields once per version with changes")
    func realmStream() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        var changes = realm.changes.makeAsyncIterator()
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 1, "color": "red"])) }
        #expect(await changes.next() == .didChange)
    }

    @Test("with autorefresh off, a realm's streams report other handles' commits only after refresh()")
    func autorefreshOff() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        realm.autorefresh = false
        var changes = realm.objects(Toy.self).changes.makeAsyncIterator()
        guard case .initial? = await changes.next() else { Issue.record("no initial"); return }
        let other = RealmActor(configuration: directory.configuration)
        try await other.open()
        try await other.addToy(id: 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(realm.objects(Toy.self).isEmpty, "the realm did not advance by itself")
        realm.refresh()
        #expect(indices(await changes.next())?.insertions == [0])
    }

    @Test("a stream that ends releases the version it held")
    func endReleasesPin() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let stream = realm.objects(Toy.self).changes
        var iterator = stream.makeAsyncIterator()
        guard case .initial? = await iterator.next() else { Issue.record("no initial"); return }
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 1, "color": "red"])) }
        // The stream still holds the version before the write.
        #expect(realm.numberOfActiveVersions == 2)
        stream.token.invalidate()
        #expect(await iterator.next() == nil)
        #expect(realm.numberOfActiveVersions == 1)
    }

    @Test("a realm confined to the main actor, with its stream consumed there")
    @MainActor
    func mainActorRealm() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: directory.configuration, actor: MainActor.shared)
        var changes = realm.objects(Toy.self).changes.makeAsyncIterator()
        guard case .initial? = await changes.next() else { Issue.record("no initial"); return }
        let other = RealmActor(configuration: directory.configuration)
        try await other.open()
        try await other.addToy(id: 7)
        #expect(indices(await changes.next())?.insertions == [0])
        #expect(realm.objects(Toy.self).first?.id == 7, "the stream advanced the realm")
        try await realm.asyncWrite { realm.objects(Toy.self).first!.color = "blue" }
        #expect(indices(await changes.next())?.modifications == [0])
    }
}

extension RealmActor {
    func addToy(id: Int) async throws {
        try await realm.asyncWrite { realm.add(Toy(value: ["id": id, "color": "red"])) }
    }
}
