import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Collections shown without their addresses, which change from run to run.
private func withoutAddresses(_ text: String) -> String {
    text.replacingOccurrences(of: #" <0x[0-9a-f]+>"#, with: "", options: .regularExpression)
}

/// A model with a description of its own.
final class Labelled: Object {
    @Persisted var name = ""
    override var description: String { "Labelled(\(name))" }
}

@Suite("What print shows of objects and collections, as RealmSwift shows them")
struct DescriptionTests {
    @Test("an object is its class and its stored properties, one a line; nil is (null), a Bool 0 or 1, Data its first bytes")
    func object() throws {
        let value = EveryType()
        value.bool = true
        value.int = 7
        value.string = "text"
        value.data = Data(0..<30)
        value.date = Date(timeIntervalSince1970: 0)
        value.optionalString = nil
        value.ints.append(objectsIn: [1, 2])
        let text = withoutAddresses(value.description)
        #expect(text.hasPrefix("EveryType {\n\tbool = 1;\n\tint = 7;\n"), "\(text)")
        #expect(text.contains("\n\tstring = text;\n"))
        #expect(text.contains("\n\tdata = <00010203 04050607 08090a0b 0c0d0e0f 10111213 14151617 — 30 total bytes>;\n"))
        #expect(text.contains("\n\tdate = 1970-01-01 00:00:00 +0000;\n"))
        #expect(text.contains("\n\toptionalString = (null);\n"))
        #expect(text.contains("\n\tints = List<Int> (\n\t\t[0] 1,\n\t\t[1] 2\n\t);\n"), "\(text)")
        #expect(text.hasSuffix("\n}"))
    }

    @Test("links and collections nest a tab deeper, five levels at most; results number their objects; a deleted object says so", arguments: RealmKind.allCases)
    func managed(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self, Dog.self]))
        try realm.write {
            let person = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex", age: 3)])
            person.dogs.first?.owner = person
            realm.add(person)
        }
        let rex = try #require(realm.objects(Dog.self).first)
        let text = withoutAddresses(rex.description)
        #expect(text.hasPrefix("Dog {\n\tname = Rex;\n\tage = 3;\n\towner = Person {\n\t\tid = 1;\n\t\tname = Ana;\n\t\tbirthdate = (null);\n\t\tage = (null);\n\t\tdogs = List<Dog> (\n\t\t\t[0] Dog {\n"), "\(text)")
        // The cycle Dog -> Person -> List -> Dog -> Person ends five levels down.
        #expect(text.contains("<Maximum depth exceeded>"))
        #expect(!text.contains("owners"), "linking objects are not stored properties")
        let results = withoutAddresses(realm.objects(Dog.self).description)
        #expect(results.hasPrefix("Results<Dog> (\n\t[0] Dog {\n\t\tname = Rex;\n"), "\(results)")
        #expect(results.hasSuffix("\n\t}\n)"))
        #expect(withoutAddresses(realm.objects(Dog.self).filter("age > 5").description) == "Results<Dog> (\n\n)")
        try realm.write { realm.delete(rex) }
        #expect(rex.description == "[invalid object]")
    }

    @Test("a map shows its entries by key, a set its elements numbered, a mixed value the value it holds")
    func mapsSetsAndMixed() {
        let player = Player()
        player.scores["b"] = 2
        player.scores["a"] = 1
        #expect(withoutAddresses(player.scores.description) == "Map<String, Int> (\n\t[a]: 1,\n\t[b]: 2\n)")
        let tagged = Tagged()
        tagged.tags.insert(objectsIn: ["x", "y"])
        #expect(withoutAddresses(tagged.tags.description) == "MutableSet<String> (\n\t[0] x,\n\t[1] y\n)")
        let setting = Setting()
        setting.value = .string("hi")
        #expect(setting.description.contains("\n\tvalue = hi;\n"), "\(setting.description)")
        setting.value = .none
        #expect(setting.description.contains("\n\tvalue = (null);\n"))
    }

    @Test("a model may override description, as with RealmSwift's objects")
    func overridden() {
        let labelled = Labelled(value: ["name": "x"])
        #expect("\(labelled)" == "Labelled(x)")
    }

    @Test("a collection shows its first hundred elements and how many it skipped")
    func longCollection() {
        let person = Person()
        person.dogs.append(objectsIn: (0..<103).map { ObjectTests.makeDog("d\($0)") })
        let text = withoutAddresses(person.dogs.description)
        #expect(text.contains("\t[99] Dog {"))
        #expect(!text.contains("[100]"))
        #expect(text.hasSuffix("\n\t... 3 objects skipped.\n)"), "\(text.suffix(80))")
    }
}

extension DescriptionTests {
    @Test("collections name the class of their objects, read by name or not, a map of objects without Optional, and optional values as Int?")
    func elementNames() throws {
        let directory = TemporaryDirectory()
        let realm = try DynamicCollectionTests.openV1File(directory.file())
        for pack in [try #require(realm.dynamicObjects("Pack").first), try #require(realm.objects(PackV1.Pack.self).first) as Object] {
            let text = withoutAddresses(pack.description)
            #expect(text.hasPrefix("Pack {\n\tname = Seeonee;\n\twolves = List<Wolf> (\n\t\t[0] Wolf {\n"), "\(text)")
            #expect(text.contains("\n\tmembers = MutableSet<Wolf> (\n") && text.contains("\n\tranks = Map<String, Wolf> (\n"), "\(text)")
        }
        let unmanaged = PackV1.Pack()
        #expect(withoutAddresses(unmanaged.ranks.description) == "Map<String, Wolf> (\n\n)")
        let values = List<Int?>()
        values.append(objectsIn: [1, nil])
        #expect(withoutAddresses(values.description) == "List<Int?> (\n\t[0] 1,\n\t[1] (null)\n)")
    }
}
