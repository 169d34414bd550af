import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

// The models of the data-model guide (../shared/reference/002_*), in RealmSwift's spelling.

final class Book: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var price: Float = 0
    @Persisted(indexed: true) var title: String = ""
}

final class Animal: Object {
    @Persisted var age: Int
}

final class Duck: Object {
    @Persisted var animal: Animal?
    @Persisted var name: String
}

final class Frog: Object {
    @Persisted var animal: Animal?
    @Persisted var dateProp: Date?
}

final class GuidePerson: Object {
    @Persisted var tmpID = 0
    var ignored = 0                     // not @Persisted: ignored, as `ignoredProperties`
    @Persisted var firstName: String
    @Persisted var lastName: String
    var name: String { "\(firstName) \(lastName)" }  // computed: not stored
}

@Suite("The data-model guide's examples")
struct DataModelGuideTests {
    @Test("to-one and to-many relationships, and the inverse relationship", arguments: RealmKind.allCases)
    func relationships(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let jim = Person(value: ["id": 1, "name": "Jim"])
        let rex = Dog(value: ["name": "Rex"])
        rex.owner = jim                                   // rex.owner = jim
        try realm.write {
            realm.add(rex)
            realm.add([Dog(value: ["name": "Fido"]), Dog(value: ["name": "Fido Jr"]), Dog(value: ["name": "Max"])])
        }
        #expect(rex.owner?.name == "Jim")
        let someDogs = realm.objects(Dog.self).filter { $0.name.contains("Fido") }
        try realm.write {
            jim.dogs.append(objectsIn: someDogs)          // [jim.dogs addObjects:someDogs]
            jim.dogs.append(rex)                          // [jim.dogs addObject:rex]
            jim.dogs.append(rex)                          // the same object may appear several times
        }
        #expect(jim.dogs.map(\.name) == ["Fido", "Fido Jr", "Rex", "Rex"])
        #expect(jim.dogs[2].isSameObject(as: jim.dogs[3]))
        #expect(rex.owners.map(\.name) == ["Jim", "Jim"], "linking objects follow the list's links")
        try realm.write { jim.dogs.removeAll() }          // "setting the list to nil empties it"
        #expect(jim.dogs.isEmpty && realm.objects(Dog.self).count == 4)
    }

    @Test("optional and required properties, defaults, ignored and computed properties")
    func propertyKinds() throws {
        let schema = try SchemaDiscovery.schema(for: [Person.self, Book.self, GuidePerson.self])
        #expect(schema["Person"]?["name"]?.isOptional == false)
        #expect(schema["Person"]?["birthdate"]?.isOptional == true && schema["Person"]?["age"]?.isOptional == true)
        #expect(schema["Book"]?["title"]?.isIndexed == true)
        #expect(schema["GuidePerson"]?.properties.map(\.name) == ["tmpID", "firstName", "lastName"])
        let book = Book()
        #expect(book.price == 0 && book.title == "", "defaultPropertyValues")
    }

    @Test("objects are live: a change through one accessor shows in every other", arguments: RealmKind.allCases)
    func liveObjects(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let myDog = Dog()
        myDog.name = "Fido"
        myDog.age = 1
        try realm.write { realm.add(myDog) }
        let myPuppy = try #require(realm.objects(Dog.self).first { $0.age == 1 })
        try realm.write { myPuppy.age = 2 }
        #expect(myDog.age == 2)
    }

    @Test("creating objects: properties, a dictionary, an array, nested values", arguments: RealmKind.allCases)
    func creatingObjects(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let myDog = Dog()
        myDog.name = "Rex"
        myDog.age = 10
        let myOtherDog = Dog(value: ["name": "Pluto", "age": 3])
        let myThirdDog = Dog(value: ["Pluto", 3])
        let person1 = Person(value: [1, "Jane", nil as Date? as Any, 30, [myDog, myOtherDog]])
        let person2 = Person(value: [2, "John", nil as Date? as Any, 30, [["Buster", 5], ["Buddy", 6]]])
        let duck = Duck(value: ["animal": ["age": 3], "name": "Gustav"])
        try realm.write {
            realm.add([person1, person2])
            realm.add(myThirdDog)
            realm.add(duck)
        }
        #expect(realm.objects(Dog.self).map(\.name).sorted() == ["Buddy", "Buster", "Pluto", "Pluto", "Rex"])
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 2)?.dogs.map(\.age) == [5, 6])
        #expect(realm.objects(Duck.self).first?.animal?.age == 3)
        #expect(realm.objects(Animal.self).count == 1)

        let author = Person()
        author.id = 3
        author.name = "David Foster Wallace"
        try realm.write { realm.add(author) }
        try realm.write { author.name = "Thomas Pynchon" }     // updating within a write
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 3)?.name == "Thomas Pynchon")
    }

    @Test("create-or-update by primary key, with a whole object and with partial values; key-value coding; deleting", arguments: RealmKind.allCases)
    func updatesAndDeletes(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let cheeseBook = Book()
        cheeseBook.title = "Cheese recipes"
        cheeseBook.price = 9000
        cheeseBook.id = 1
        try realm.write { realm.add(cheeseBook, update: .modified) }
        try realm.write { realm.create(Book.self, value: ["id": 1, "price": Float(9500)], update: .modified) }
        #expect(cheeseBook.title == "Cheese recipes" && cheeseBook.price == 9500, "partial update keeps the title")
        try realm.write { realm.objects(Book.self).first?.setValue("Cheese recipes, 2nd edition", forKey: "title") }
        #expect(cheeseBook.title == "Cheese recipes, 2nd edition")
        try realm.write { realm.delete(cheeseBook) }
        #expect(cheeseBook.isInvalidated && realm.objects(Book.self).isEmpty)
        try realm.write { realm.add(Frog(value: ["animal": ["age": 1]])) }
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }
}
