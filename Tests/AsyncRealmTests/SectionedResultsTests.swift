import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

/// A model with a computed section key, as RealmSwift's guide sections by a first letter.
final class Contact: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var group: String

    var firstLetter: String { name.first.map(String.init) ?? "" }
}

@Suite("Sectioned results")
struct SectionedResultsTests {
    static func realm(_ directory: TemporaryDirectory, names: [String]) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Contact.self]))
        try realm.write {
            for (id, name) in names.enumerated() {
                realm.add(Contact(value: ["id": id, "name": name, "group": id % 2 == 0 ? "even" : "odd"]))
            }
        }
        return realm
    }

    static func names(_ section: ResultsSection<String, Contact>) -> [String] { section.map(\.name) }

    @Test("sectioned(by:) on a computed key sorts by the property it reads and groups by its value")
    func byComputedKey() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(directory, names: ["bob", "anna", "carl", "amy", "bea"])
        let sections = realm.objects(Contact.self).sectioned(by: \.firstLetter)
        #expect(sections.allKeys == ["a", "b", "c"])
        #expect(sections.count == 3)
        #expect(sections.map(Self.names) == [["amy", "anna"], ["bea", "bob"], ["carl"]])
        #expect(sections[1].key == "b" && sections[1].id == "b")
        #expect(sections[IndexPath(item: 1, section: 1)].name == "bob")
        #expect(sections[IndexPath(indexes: [0, 0])].name == "amy")
        let descending = realm.objects(Contact.self).sectioned(by: \.firstLetter, ascending: false)
        #expect(descending.allKeys == ["c", "b", "a"])
        #expect(descending.map(Self.names) == [["carl"], ["bob", "bea"], ["anna", "amy"]])
    }

    @Test("with sort descriptors and a key block, sections follow their first object and gather every object of their key")
    func keyBlock() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(directory, names: ["d", "c", "b", "a"])
        // Sorted by name: a(3, odd) b(2, even) c(1, odd) d(0, even).
        let sections = realm.objects(Contact.self).sectioned(by: { $0.group }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(sections.allKeys == ["odd", "even"])
        #expect(sections.map(Self.names) == [["a", "c"], ["b", "d"]])
        let byProperty = realm.objects(Contact.self).filter("id > 0").sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: false)])
        #expect(byProperty.allKeys == ["odd", "even"])
        #expect(byProperty.map(Self.names) == [["c", "a"], ["b"]])
        #expect(realm.objects(Contact.self).filter("id > 10").sectioned(by: \.firstLetter).isEmpty)
    }

    @Test("sections are live: a write adds, moves and empties sections, and a held section follows its key")
    func live() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(directory, names: ["anna", "bob"])
        let sections = realm.objects(Contact.self).sectioned(by: \.firstLetter)
        let b = sections[1]
        #expect(Self.names(b) == ["bob"])
        try realm.write {
            realm.add(Contact(value: ["id": 10, "name": "abe"]))
            realm.add(Contact(value: ["id": 11, "name": "bill"]))
            realm.add(Contact(value: ["id": 12, "name": "zed"]))
        }
        #expect(sections.allKeys == ["a", "b", "z"])
        #expect(Self.names(b) == ["bill", "bob"])
        try realm.write {
            realm.object(ofType: Contact.self, forPrimaryKey: 0)!.name = "cleo"
            realm.delete(realm.objects(Contact.self).filter("name BEGINSWITH 'b'"))
        }
        #expect(sections.allKeys == ["a", "c", "z"])
        #expect(b.isEmpty, "no object has the key 'b' any more")
        #expect(sections.map(Self.names) == [["abe"], ["cleo"], ["zed"]])
    }

    @Test("frozen sections keep the version they were frozen at; thawed ones are live again")
    func frozen() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(directory, names: ["anna", "bob"])
        let sections = realm.objects(Contact.self).sectioned(by: \.firstLetter)
        let frozen = sections.freeze()
        let frozenSection = sections[0].freeze()
        #expect(frozen.isFrozen && frozenSection.isFrozen && !sections.isFrozen)
        try realm.write { realm.add(Contact(value: ["id": 5, "name": "carl"])) }
        #expect(frozen.allKeys == ["a", "b"])
        #expect(frozenSection.map(\.name) == ["anna"])
        #expect(sections.allKeys == ["a", "b", "c"])
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.allKeys == ["a", "b", "c"])
        #expect(frozenSection.thaw()?.map(\.name) == ["anna"])
    }

    @Test("a list's objects are sectioned as results are")
    func list() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "sectioned-list-\(UUID())", objectTypes: [Person.self, Dog.self]))
        let person = Person(value: ["id": 1, "name": "Ana"])
        try realm.write {
            realm.add(person)
            for (name, age) in [("Rex", 3), ("Bo", 1), ("Fido", 3), ("Max", 1)] { person.dogs.append(Dog(value: ["name": name, "age": age])) }
        }
        let byAge = person.dogs.sectioned(by: \.age)
        #expect(byAge.allKeys == [1, 3])
        #expect(byAge.map { $0.map(\.name) } == [["Bo", "Max"], ["Rex", "Fido"]])
        try realm.write { person.dogs.remove(at: 1) }
        #expect(byAge.map { $0.map(\.name) } == [["Max"], ["Rex", "Fido"]])
    }

    @Test("sectioned results equal themselves and their copies, not another call's sections")
    func equality() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(directory, names: ["anna"])
        let sections = realm.objects(Contact.self).sectioned(by: \.firstLetter)
        let copy = sections
        #expect(sections == copy)
        #expect(sections != realm.objects(Contact.self).sectioned(by: \.firstLetter))
        #expect(sections[0] == copy[0])
        #expect(sections[0] != realm.objects(Contact.self).sectioned(by: \.firstLetter)[0])
    }

    @Test("sections and a section pass to another thread as a ThreadSafeReference and, frozen, as Frozen, keeping their key block, filter and order")
    func acrossThreads() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Contact.self])
        let realm = try Self.realm(directory, names: ["bob", "anna", "carl", "amy", "bea", "dan"])
        let sections = realm.objects(Contact.self).filter("name != 'dan'")
            .sectioned(by: { $0.group }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: false)])
        #expect(sections.allKeys == ["even", "odd"] && sections.map(Self.names) == [["carl", "bob", "bea"], ["anna", "amy"]])
        let sectionsReference = ThreadSafeReference(to: sections)
        let sectionReference = ThreadSafeReference(to: sections[1])
        try realm.write { realm.add(Contact(value: ["id": 20, "name": "ada", "group": "odd"])) }
        let resolved = try onAnotherThread {
            let other = try Realm(configuration: configuration)
            let sections = try #require(other.resolve(sectionsReference))
            let section = try #require(other.resolve(sectionReference))
            return (sections.allKeys, sections.map(Self.names), section.key, Self.names(section))
        }
        #expect(resolved.0 == ["even", "odd"] && resolved.1 == [["carl", "bob", "bea"], ["anna", "amy", "ada"]])
        #expect(resolved.2 == "odd" && resolved.3 == ["anna", "amy", "ada"])

        let frozen = Frozen(sections)
        let frozenSection = Frozen(sections[0])
        try realm.write { realm.add(Contact(value: ["id": 21, "name": "cy", "group": "even"])) }
        let read = try onAnotherThread { (frozen.value.map(Self.names), Self.names(frozenSection.value), frozen.value.isFrozen) }
        #expect(read.0 == [["carl", "bob", "bea"], ["anna", "amy", "ada"]] && read.1 == ["carl", "bob", "bea"] && read.2)
        #expect(frozen.thaw()?.map(Self.names) == [["cy", "carl", "bob", "bea"], ["anna", "amy", "ada"]])
        #expect(!sections[0].isInvalidated && !sections.isInvalidated)
    }

    @Test("IndexPath(item:section:), (row:section:), section, item and row read as UIKit's")
    func indexPaths() {
        let path = IndexPath(item: 4, section: 2)
        #expect(path.section == 2 && path.item == 4 && path.row == 4)
        #expect(IndexPath(row: 1, section: 3) == IndexPath(indexes: [3, 1]))
    }
}
