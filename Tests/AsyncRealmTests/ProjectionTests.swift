import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

final class Resident: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
    @Persisted var home: Town?
    @Persisted var nicknames: List<String>
}

final class Town: Object {
    @Persisted var name: String
}

final class ResidentView: Projection<Resident> {
    @Projected(\Resident.firstName) var firstName
    @Projected(\Resident.home?.name) var homeTown
    @Projected(\Resident.nicknames) var nicknames
}

@Suite("Projection")
struct ProjectionTests {
    private let types: [Object.Type] = [Resident.self, Town.self]

    private func realm(_ name: String) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "projection-\(name)", objectTypes: types))
        try realm.write {
            for id in 0..<3 {
                realm.create(Resident.self, value: ["id": id, "firstName": "F\(id)", "lastName": "L\(id)", "age": 20 + id,
                                                    "home": ["name": "Town \(id)"], "nicknames": ["n\(id)"]])
            }
        }
        return realm
    }

    @Test("a projection reads its object's properties through key paths, live, and writes through writable ones")
    func readsAndWrites() throws {
        let realm = try realm("reads")
        let view = ResidentView(projecting: realm.object(ofType: Resident.self, forPrimaryKey: 1)!)
        #expect(view.firstName == "F1" && view.homeTown == "Town 1" && Array(view.nicknames) == ["n1"])
        try realm.write { view.rootObject.home?.name = "Elsewhere" }
        #expect(view.homeTown == "Elsewhere", "live")
        try realm.write { view.firstName = "Renamed" }
        #expect(view.rootObject.firstName == "Renamed" && view.realm === realm && !view.isInvalidated)
        #expect(view == ResidentView(projecting: realm.object(ofType: Resident.self, forPrimaryKey: 1)!))
        #expect(view.description.contains("firstName = Renamed"))
    }

    @Test("realm.objects of a projection class: count, order, filter, where, sort")
    func projectedResults() throws {
        let realm = try realm("results")
        let views = realm.objects(ResidentView.self)
        #expect(views.count == 3 && views.map(\.firstName) == ["F0", "F1", "F2"])
        #expect(views.filter("age >= 21").map(\.firstName) == ["F1", "F2"])
        #expect(views.where { $0.home.name == "Town 0" }.map(\.firstName) == ["F0"])
        #expect(views.sorted(byKeyPath: "age", ascending: false).map(\.firstName) == ["F2", "F1", "F0"])
        #expect(views.first?.homeTown == "Town 0")
    }

    @Test("a projection's stream reports its projected properties under its names, not the others")
    func changes() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "projection-changes", objectTypes: types))
        try await realm.asyncWrite {
            realm.create(Resident.self, value: ["id": 1, "firstName": "A", "home": ["name": "T"]])
        }
        let view = ResidentView(projecting: realm.object(ofType: Resident.self, forPrimaryKey: 1)!)
        var changes = view.changes.makeAsyncIterator()
        try await realm.asyncWrite { view.rootObject.lastName = "not projected" }
        try await realm.asyncWrite { view.rootObject.firstName = "B" }
        guard case .change(_, let first)? = await changes.next() else { Issue.record("no change"); return }
        #expect(first.map(\.name) == ["firstName"] && first.first?.newValue as? String == "B" && first.first?.oldValue as? String == "A")
        try await realm.asyncWrite { view.rootObject.home!.name = "U" }
        guard case .change(_, let second)? = await changes.next() else { Issue.record("no change"); return }
        #expect(second.map(\.name) == ["homeTown"] && second.first?.newValue as? String == "U")
        try await realm.asyncWrite { realm.delete(view.rootObject) }
        guard case .deleted? = await changes.next() else { Issue.record("no deletion"); return }
    }

    @Test("projections freeze, thaw and travel by thread-safe reference")
    func threadConfinement() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: types)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(Resident.self, value: ["id": 1, "firstName": "A"]) }
        let view = ResidentView(projecting: realm.object(ofType: Resident.self, forPrimaryKey: 1)!)
        let frozen = view.freeze()
        try realm.write { view.rootObject.firstName = "B" }
        #expect(frozen.isFrozen && frozen.firstName == "A" && frozen.thaw()?.firstName == "B")
        let reference = ThreadSafeReference(to: view)
        let name = try onAnotherThread { try Realm(configuration: configuration).resolve(reference)?.firstName }
        #expect(name == "B")
        let frozenViews = realm.objects(ResidentView.self).freeze()
        #expect(frozenViews.isFrozen && frozenViews.first?.firstName == "B")
    }
}
