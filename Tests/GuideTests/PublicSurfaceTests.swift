import AsyncRealm
import Foundation
import Testing

// This target imports AsyncRealm as an app does (no @testable), so what compiles here is what
// an app can call: RealmSwift's spellings that once compiled only inside the module.

final class SurfacePet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var friends: List<SurfacePet>
    @Persisted var circle: MutableSet<SurfacePet>
    @Persisted(originProperty: "friends") var fans: LinkingObjects<SurfacePet>
}

@Suite("RealmSwift's spellings, called from outside the module")
struct PublicSurfaceTests {
    @Test("sorted(byKeyPath:) without ascending sorts smallest first on a list, a set and linking objects")
    func sortedByKeyPathDefault() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-sort", objectTypes: [SurfacePet.self]))
        try realm.write {
            let pets = [("Rex", 5), ("Ace", 9), ("Bo", 1)].map { realm.create(SurfacePet.self, value: ["name": $0.0, "age": $0.1]) }
            pets[0].friends.append(objectsIn: pets)
            pets[0].circle.insert(objectsIn: pets)
            pets[2].friends.append(pets[0])
            pets[1].friends.append(pets[0])
        }
        let rex = try #require(realm.objects(SurfacePet.self).filter("name == 'Rex'").first)
        #expect(rex.friends.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(rex.circle.sorted(byKeyPath: "name").map(\.name) == ["Ace", "Bo", "Rex"])
        #expect(rex.fans.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(realm.objects(SurfacePet.self).sorted(byKeyPath: "age").map(\.name) == ["Bo", "Rex", "Ace"])
        #expect(AnyRealmCollection(rex.friends).sorted(byKeyPath: "name").map(\.name) == ["Ace", "Bo", "Rex"])
    }
}

final class SurfaceScores: Object {
    @Persisted var best: Map<String, Int>
    @Persisted var maybe: Map<String, Double?>
}

extension PublicSurfaceTests {
    @Test("a map of values sorts its values with sorted(ascending:), nils first, managed or not", arguments: [false, true])
    func mapSortedAscending(managed: Bool) throws {
        let scores = SurfaceScores()
        scores.best.merge(["a": 3, "b": 1, "c": 2]) { $1 }
        scores.maybe.merge(["a": 2.5, "b": nil, "c": 0.5]) { $1 }
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "public-surface-map", objectTypes: [SurfaceScores.self]))
        if managed { try realm.write { realm.add(scores) } }
        #expect(scores.best.sorted() == [1, 2, 3] && scores.best.sorted(ascending: false) == [3, 2, 1])
        #expect(scores.maybe.sorted() == [nil, 0.5, 2.5] && scores.maybe.sorted(ascending: false) == [2.5, 0.5, nil])
    }
}
