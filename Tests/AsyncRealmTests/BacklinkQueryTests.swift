import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

final class LinksPerson: Object {
    @Persisted var name: String
    @Persisted var dogs: List<LinksDog>
    @Persisted var best: LinksDog?
    @Persisted var favourites: Map<String, LinksDog?>
}

final class LinksDog: Object {
    @Persisted var name: String
    @Persisted(originProperty: "dogs") var listedBy: LinkingObjects<LinksPerson>
}

/// `@links.Class.property` in a query: the objects linking to each object through a property,
/// without a `LinkingObjects` property declared for it (Realm's query language).
@Suite("@links in queries")
struct BacklinkQueryTests {
    static func realm(_ kind: RealmKind, _ directory: TemporaryDirectory) throws -> Realm {
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [LinksPerson.self, LinksDog.self]))
        try realm.write {
            let (rex, fido, bo) = (LinksDog(value: ["Rex"]), LinksDog(value: ["Fido"]), LinksDog(value: ["Bo"]))
            realm.add([rex, fido, bo])
            realm.create(LinksPerson.self, value: ["name": "Ana", "dogs": [rex, fido], "best": rex])
            realm.create(LinksPerson.self, value: ["name": "Cy", "dogs": [rex], "best": fido, "favourites": ["a": bo, "b": bo, "c": rex]])
        }
        return realm
    }

    static func names(_ results: Results<LinksDog>) -> [String] { results.map(\.name).sorted() }

    @Test("through a list and a link, counted, any and all, agreeing with a LinkingObjects property", arguments: RealmKind.allCases)
    func backlinks(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, directory)
        let dogs = realm.objects(LinksDog.self)
        #expect(Self.names(dogs.filter("@links.LinksPerson.dogs.@count == 0")) == ["Bo"])
        #expect(Self.names(dogs.filter("@links.LinksPerson.dogs.@count == 2")) == ["Rex"])
        #expect(Self.names(dogs.filter("ANY @links.LinksPerson.dogs.name == 'Ana'")) == ["Fido", "Rex"])
        #expect(Self.names(dogs.filter("ALL @links.LinksPerson.dogs.name == 'Ana'")) == ["Bo", "Fido"])
        #expect(Self.names(dogs.filter("@links.LinksPerson.best.name == 'Cy'")) == ["Fido"])
        #expect(Self.names(dogs.filter("NOT @links.LinksPerson.best.@count > 0")) == ["Bo"])
        // Through a map: once per entry holding the object.
        #expect(Self.names(dogs.filter("@links.LinksPerson.favourites.@count == 2")) == ["Bo"])
        #expect(Self.names(dogs.filter("ANY @links.LinksPerson.favourites.name == 'Cy'")) == ["Bo", "Rex"])
        // The same answers as through the declared property, for every person's name.
        for name in ["Ana", "Cy", "Nobody"] {
            #expect(Self.names(dogs.filter("ANY @links.LinksPerson.dogs.name == %@", name)) == Self.names(dogs.filter("ANY listedBy.name == %@", name)))
        }
        // In a write, before it commits; and on a list's results.
        try realm.write {
            let bo = try #require(dogs.filter("name == 'Bo'").first)
            realm.objects(LinksPerson.self).first!.dogs.append(bo)
            #expect(Self.names(dogs.filter("@links.LinksPerson.dogs.@count == 0")) == [])
        }
        let ana = try #require(realm.objects(LinksPerson.self).filter("name == 'Ana'").first)
        #expect(ana.dogs.filter("@links.LinksPerson.dogs.@count > 1").map(\.name) == ["Rex"])
    }

    @Test("@links.@count counts every link to the object, from every class and property, a map's entries each", arguments: RealmKind.allCases)
    func allLinksCounted(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, directory)
        let dogs = realm.objects(LinksDog.self)
        // Rex: two lists, a link and a map entry; Fido: a list and a link; Bo: two map entries.
        #expect(Self.names(dogs.filter("@links.@count == 4")) == ["Rex"])
        #expect(Self.names(dogs.filter("@links.@count == 2")) == ["Bo", "Fido"])
        try realm.write { realm.add(LinksDog(value: ["Max"])) }
        #expect(Self.names(dogs.filter("@links.@count == 0")) == ["Max"])
        #expect(Self.names(dogs.filter("@links.@count > 0 AND @links.LinksPerson.best.@count == 0")) == ["Bo"])
        try realm.write { realm.delete(realm.objects(LinksPerson.self).filter("name == 'Cy'")) }
        #expect(Self.names(dogs.filter("@links.@count == 2")) == ["Rex"])
        #expect(Self.names(dogs.filter("@links.@count == 0")) == ["Bo", "Max"])
        let stored = List<LinksDog>()
        stored.append(objectsIn: dogs.sorted(byKeyPath: "name"))
        #expect(stored.index(matching: "@links.@count == 1") == 1)
    }

    @Test("an unmanaged object has no backlinks; a class or property that does not link here is an invalid query")
    func unmanagedAndErrors() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(.file, directory)
        let list = List<LinksDog>()
        list.append(objectsIn: [LinksDog(value: ["Unsaved"])])
        #expect(list.index(matching: "@links.LinksPerson.dogs.@count == 0") == 0)
        // An unmanaged list of stored objects: their backlinks are read in their own realm.
        let stored = List<LinksDog>()
        stored.append(objectsIn: realm.objects(LinksDog.self).sorted(byKeyPath: "name"))
        #expect(stored.map(\.name) == ["Bo", "Fido", "Rex"])
        #expect(stored.index(matching: "@links.LinksPerson.dogs.@count == 2") == 2)
        #expect(stored.index(matching: "ANY listedBy.name == 'Cy'") == 2)
        #expect(stored.index(matching: "ANY @links.LinksPerson.best.name == 'Cy'") == 1)
        let dogs = realm.objects(LinksDog.self)
        for (query, message) in [
            ("@links.Nobody.dogs.@count == 0", "no class 'Nobody'"),
            ("@links.LinksPerson.name.@count == 0", "'LinksPerson' has no link or collection of 'LinksDog' named 'name'"),
            ("@links.LinksPerson.@count == 0", "@links names the class and the property"),
            ("@links.@sum.name > 0", "@links alone is only counted"),
            ("ANY @links == nil", "@links alone is only counted"),
        ] {
            #expect(throws: (any Error).self, "\(query)") { try dogs.filter(query, values: .none) }
            do {
                _ = try dogs.filter(query, values: .none)
            } catch {
                #expect("\(error)".contains(message), "\(query): \(error)")
            }
        }
    }
}
