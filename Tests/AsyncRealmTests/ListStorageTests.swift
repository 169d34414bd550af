import Foundation
import Testing
@testable import AsyncRealm
@testable import StorageEngine  // the commit results the tests inspect
import TestSupport

final class Shelter: Object {
    @Persisted var name: String
    @Persisted var residents: List<Pet>
    @Persisted var favourite: Pet?
    @Persisted var scores: List<Int?>
}

final class Pet: Object {
    @Persisted var name: String
    @Persisted(originProperty: "residents") var shelters: LinkingObjects<Shelter>
    @Persisted(originProperty: "favourite") var fans: LinkingObjects<Shelter>
}

@Suite("List storage and the backlink index")
struct ListStorageTests {
    @Test("appending to a list of 100,000 elements writes as little as appending to a list of 10", arguments: RealmKind.allCases)
    func appendIsLogarithmic(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let large = Shelter(), small = Shelter()
        try realm.write {
            realm.add(large)
            realm.add(small)
            large.scores.append(objectsIn: (0..<100_000).map { $0 })
            small.scores.append(objectsIn: (0..<10).map { $0 })
        }
        func bytesOfAppending(to shelter: Shelter) throws -> UInt64 {
            try realm.write { shelter.scores.append(7) }
            let commit = try #require(realm.lastCommit)
            #expect(commit.changeset.tables["list_Shelter.scores"]?.inserted.count == 1, "one element row written")
            return commit.pageBytes
        }
        let smallBytes = try bytesOfAppending(to: small)
        let largeBytes = try bytesOfAppending(to: large)
        // An inline list of 100,000 integers would rewrite some 200 KB; a tree of them rewrites
        // one root-to-leaf path, a few pages whatever the length.
        #expect(largeBytes <= 3 * smallBytes + 16_384, "small list: \(smallBytes) bytes, large list: \(largeBytes) bytes")
        #expect(largeBytes < 48_000)
        #expect(large.scores.count == 100_001 && large.scores[100_000] == 7 && large.scores[99_999] == 99_999)
        #expect(Array(small.scores) == (0..<10).map { $0 } + [7])
    }

    @Test("every list operation agrees with an array under 300 random writes, through reopening", arguments: RealmKind.allCases)
    func randomOperations(kind: RealmKind) throws {
        let seed = ProcessInfo.processInfo.environment["ASYNCREALM_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory()
        var realm = try Realm(configuration: kind.configuration(directory))
        let pets = (0..<6).map { index in
            let pet = Pet()
            pet.name = "pet \(index)"
            return pet
        }
        let shelters = [Shelter(), Shelter()]
        try realm.write {
            realm.add(pets)
            realm.add(shelters)
        }
        var model: [[String]] = [[], []]
        var scoresModel: [Int?] = []
        for step in 0..<300 {
            let which = Int(random.next() % 2)
            let list = shelters[which].residents
            let count = model[which].count
            let pet = pets[Int(random.next() % UInt64(pets.count))]
            try realm.write {
                switch random.next() % 10 {
                case 0, 1:
                    list.append(pet)
                    model[which].append(pet.name)
                case 2:
                    list.append(objectsIn: [pet, pets[0]])
                    model[which] += [pet.name, pets[0].name]
                case 3:
                    let index = Int(random.next() % UInt64(count + 1))
                    list.insert(pet, at: index)
                    model[which].insert(pet.name, at: index)
                case 4 where count > 0:
                    let index = Int(random.next() % UInt64(count))
                    list.remove(at: index)
                    model[which].remove(at: index)
                case 5 where count > 1:
                    let from = Int(random.next() % UInt64(count)), to = Int(random.next() % UInt64(count))
                    list.move(from: from, to: to)
                    model[which].insert(model[which].remove(at: from), at: to)
                case 6 where count > 1:
                    let first = Int(random.next() % UInt64(count)), second = Int(random.next() % UInt64(count))
                    list.swapAt(first, second)
                    model[which].swapAt(first, second)
                case 7 where count > 0:
                    let index = Int(random.next() % UInt64(count))
                    list[index] = pet
                    model[which][index] = pet.name
                case 8 where count > 20:
                    list.removeAll()
                    model[which] = []
                default:
                    let score: Int? = random.next() % 3 == 0 ? nil : Int(random.next() % 100)
                    shelters[which].scores.append(score)
                    if which == 0 { scoresModel.append(score) } else { shelters[1].scores.removeAll() }
                }
            }
            for index in 0..<2 {
                #expect(shelters[index].residents.map(\.name) == model[index], "seed \(seed), step \(step)")
            }
            for pet in pets {
                let links = model.enumerated().flatMap { shelter, names in names.filter { $0 == pet.name }.map { _ in shelter } }
                #expect(pet.shelters.count == links.count, "backlinks, one per link; seed \(seed), step \(step)")
            }
        }
        #expect(Array(shelters[0].scores) == scoresModel, "seed \(seed)")
        if kind == .file {
            realm = try Realm(configuration: kind.configuration(directory))
        }
        let reread = Array(realm.objects(Shelter.self))
        #expect(reread.map { $0.residents.map(\.name) } == model, "seed \(seed)")
        #expect(Array(reread[0].scores) == scoresModel, "seed \(seed)")
    }

    @Test("backlinks follow links and lists, once per link, and deletes keep lists, links and element rows consistent", arguments: RealmKind.allCases)
    func backlinksAndDeletes(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let rex = Pet(), fido = Pet()
        rex.name = "Rex"
        fido.name = "Fido"
        let north = Shelter(), south = Shelter()
        north.name = "North"
        south.name = "South"
        north.residents.append(objectsIn: [rex, fido, rex])
        north.favourite = rex
        south.residents.append(rex)
        south.favourite = rex
        try realm.write {
            realm.add(north)
            realm.add(south)
        }
        #expect(rex.shelters.map(\.name) == ["North", "North", "South"])
        #expect(rex.fans.map(\.name) == ["North", "South"])
        #expect(fido.shelters.map(\.name) == ["North"] && fido.fans.isEmpty)

        try realm.write { realm.delete(north) }
        #expect(rex.shelters.map(\.name) == ["South"] && rex.fans.map(\.name) == ["South"])
        #expect(fido.shelters.isEmpty)
        #expect(realm.readTable(named: "list_Shelter.residents")?.count == 1, "the deleted owner's element rows are gone")

        try realm.write { realm.delete(rex) }
        #expect(south.residents.isEmpty && south.favourite == nil)
        #expect(realm.readTable(named: "list_Shelter.residents")?.count == 0)

        try realm.write {
            south.residents.append(objectsIn: [fido, fido])
            south.favourite = fido
        }
        try realm.write { realm.delete(realm.objects(Pet.self)) }
        #expect(south.residents.isEmpty && south.favourite == nil, "deleting every Pet unlinks them all")
        #expect(realm.readTable(named: "list_Shelter.residents")?.count == 0)

        try realm.write {
            south.scores.append(objectsIn: [1, nil, 3])
            realm.deleteAll()
        }
        #expect(realm.isEmpty && realm.readTable(named: "list_Shelter.scores")?.count == 0)
    }

    @Test("cancelling a write restores the lists it changed", arguments: RealmKind.allCases)
    func cancelRestoresLists(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let shelter = Shelter()
        shelter.scores.append(objectsIn: [1, 2, 3])
        try realm.write { realm.add(shelter) }
        realm.beginWrite()
        shelter.scores.remove(at: 0)
        shelter.scores.append(9)
        #expect(Array(shelter.scores) == [2, 3, 9])
        realm.cancelWrite()
        #expect(Array(shelter.scores) == [1, 2, 3])
    }
}

/// SplitMix64: a seeded generator, so a failing run can be replayed with ASYNCREALM_SEED.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
