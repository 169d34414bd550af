import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// A small seeded generator, so that a failing run can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Change streams against a model")
struct ChangeStreamDifferentialTests {
    @Test("applying each update's deletions and insertions to the previous ids gives the new ids, and every modified object is reported")
    func updatesReplayOntoTheModel() async throws {
        let seed = ProcessInfo.processInfo.environment["ASYNCREALM_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix(state: seed)
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let queries: [(String, Results<Pet>)] = [
            ("all", realm.objects(Pet.self)),
            ("filtered", realm.objects(Pet.self).filter("age >= 10")),
            ("sorted", realm.objects(Pet.self).sorted(byKeyPath: "age")),
            ("filtered and sorted", realm.objects(Pet.self).filter("age >= 10").sorted(byKeyPath: "age", ascending: false)),
        ]
        var streams = queries.map { $0.1.changes.makeAsyncIterator() }
        var previous: [[Int]] = []
        for index in streams.indices {
            guard case .initial(let results)? = await streams[index].next() else { Issue.record("no initial (seed \(seed))"); return }
            previous.append(results.map(\.id))
        }
        var nextID = 0
        for round in 0..<60 {
            var modified = Set<Int>()
            for _ in 0...Int(random.next() % 3) {
                try await realm.asyncWrite {
                    let pets = Array(realm.objects(Pet.self))
                    for _ in 0..<(1 + Int(random.next() % 4)) {
                        let operation = pets.isEmpty ? 0 : random.next() % 4
                        switch operation {
                        case 0:
                            nextID += 1
                            realm.add(Pet(value: ["id": nextID, "name": "p\(nextID)", "age": Int(random.next() % 30)]))
                        case 1:
                            let pet = pets[Int(random.next() % UInt64(pets.count))]
                            if !pet.isInvalidated { realm.delete(pet) }
                        case 2:
                            let pet = pets[Int(random.next() % UInt64(pets.count))]
                            let age = Int(random.next() % 30)
                            // Setting the value a property has is no change.
                            if !pet.isInvalidated, pet.age != age { pet.age = age; modified.insert(pet.id) }
                        default:
                            let pet = pets[Int(random.next() % UInt64(pets.count))]
                            if !pet.isInvalidated { pet.name += "!"; modified.insert(pet.id) }
                        }
                    }
                }
            }
            for index in streams.indices {
                let (name, results) = queries[index]
                let old = previous[index]
                let new = results.map(\.id)
                guard old != new || !modified.isDisjoint(with: old) else { continue }
                guard case .update(_, let deletions, let insertions, let modifications)? = await streams[index].next() else {
                    Issue.record("\(name): no update in round \(round) (seed \(seed))")
                    return
                }
                #expect(deletions == deletions.sorted() && insertions == insertions.sorted() && modifications == modifications.sorted(),
                        "\(name): indices ascending (seed \(seed))")
                var replayed = old
                for position in deletions.reversed() { replayed.remove(at: position) }
                for position in insertions { replayed.insert(new[position], at: position) }
                #expect(replayed == new, "\(name), round \(round): old \(old) - \(deletions) + \(insertions) != new \(new) (seed \(seed))")
                for (position, id) in old.enumerated() where modified.contains(id) && new.contains(id) {
                    #expect(modifications.contains(position) || deletions.contains(position),
                            "\(name), round \(round): object \(id) at \(position) was modified but not reported (seed \(seed))")
                }
                for position in modifications {
                    #expect(modified.contains(old[position]), "\(name), round \(round): \(old[position]) reported modified (seed \(seed))")
                    #expect(!deletions.contains(position), "\(name), round \(round): \(position) both deleted and modified (seed \(seed))")
                }
                previous[index] = new
            }
        }
    }
}
