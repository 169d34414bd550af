import AsyncRealm
import Foundation
import Testing
import TestSupport

// The examples of Docs/Models.md.

final class Contact: Object {
    @Persisted(primaryKey: true) var id: ObjectId      // unique; a fresh ObjectId by default
    @Persisted(indexed: true) var name: String           // indexed: fast == and IN queries
    @Persisted var nickname: String?                     // optional: may hold nil
    @Persisted var age = 0                               // a default value (the type is inferred)
    @Persisted var birthday: Date?
    @Persisted var photo: Data?
    @Persisted var balance: Decimal                      // exact decimal, as Realm's Decimal128
    @Persisted var deviceID: UUID
    @Persisted var rating: Double
    @Persisted var favorite: Bool
    @Persisted var status: Status = .active              // an enum with a raw value
    @Persisted var tags: List<String>                    // a list of values
    @Persisted var address: Address?                     // a link to one object
    @Persisted var friends: List<Contact>                // links to many objects
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<Contact>  // who lists this one
    var isSelected = false                               // not @Persisted: not stored
}

enum Status: String, PersistableEnum {
    case active, archived
}

final class Address: Object {
    @Persisted var street: String
    @Persisted var city: String
}

final class Article: Object {
    @Persisted var title: String
    @Persisted var keywords: MutableSet<String>
}

final class Player: Object {
    @Persisted var name: String
    @Persisted var scores: Map<String, Int>
}

final class Shipping: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}

final class Order: Object {
    @Persisted var number: Int
    @Persisted var shipping: Shipping?
}

final class Preference: Object {
    @Persisted var key: String
    @Persisted var value: AnyRealmValue
}

struct Email: CustomPersistable, Hashable {
    typealias PersistedType = String
    let address: String
    init(persistedValue: String) { address = persistedValue }
    var persistableValue: String { address }
}

final class Subscriber: Object {
    @Persisted var email: Email
    @Persisted var previous: List<Email>
}

final class ContactCard: Projection<Contact> {
    @Projected(\Contact.name) var name
    @Projected(\Contact.address?.city) var city
}

final class Recipe: Object, Codable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var minutes: Int
    @Persisted var steps: List<String>
}

final class Member: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String

    override class func propertiesMapping() -> [String: String] {
        ["firstName": "first_name"]
    }
}

@Suite("Docs/Models.md")
struct ModelsGuide {
    @Test("the model's schema: types, options, links, the inverse, the ignored property")
    func schema() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-schema", objectTypes: [Contact.self, Address.self]))
        let schema = try #require(realm.schema["Contact"])
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["name"]?.isIndexed == true)
        #expect(schema["nickname"]?.isOptional == true)
        #expect(schema["balance"]?.type == .decimal128)
        #expect(schema["status"]?.type == .string)
        #expect(schema["tags"]?.isArray == true)
        #expect(schema["friendOf"]?.type == .linkingObjects)
        #expect(schema["isSelected"] == nil)
    }

    @Test("defaults, primary keys, links, lists and the inverse")
    func objects() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-objects", objectTypes: [Contact.self, Address.self]))
        let contact = Contact()
        print(contact.age, contact.status, contact.nickname ?? "nil", contact.tags.count)   // 0 active nil 0
        #expect(contact.age == 0 && contact.status == .active && contact.nickname == nil)
        #expect(contact.id != Contact().id)
        try realm.write { realm.add(contact) }

        let found = realm.object(ofType: Contact.self, forPrimaryKey: contact.id)
        #expect(found == contact)

        try realm.write {
            let ana = realm.create(Contact.self, value: ["name": "Ana", "address": ["street": "Main St 1", "city": "Porto"]])
            let bo = realm.create(Contact.self, value: ["name": "Bo"])
            ana.friends.append(bo)
            ana.tags.append(objectsIn: ["family", "work"])
        }
        let bo = realm.objects(Contact.self).where { $0.name == "Bo" }.first!
        print(bo.friendOf.map(\.name))          // ["Ana"]
        #expect(bo.friendOf.map(\.name) == ["Ana"])
        #expect(realm.objects(Address.self).first?.city == "Porto")
        #expect(realm.objects(Contact.self).filter("status == 'active'").count == 3)
        #expect(realm.objects(Contact.self).where { $0.status == .archived }.isEmpty)
    }

    @Test("a set keeps each keyword once and is queried as a list is")
    func sets() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-sets", objectTypes: [Article.self]))
        try realm.write {
            let article = realm.create(Article.self, value: ["title": "Sets", "keywords": ["swift", "realm", "swift"]])
            article.keywords.insert("database")
            article.keywords.remove("realm")
        }
        let tagged = realm.objects(Article.self).filter("ANY keywords == 'swift'")
        print(tagged.first!.keywords.count)       // 2: "swift" once, and "database"
        #expect(Set(tagged.first!.keywords) == ["swift", "database"])
    }

    @Test("a map's entries are written, removed and queried by key")
    func maps() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-maps", objectTypes: [Player.self]))
        try realm.write {
            let player = realm.create(Player.self, value: ["name": "Ana", "scores": ["level 1": 120]])
            player.scores["level 2"] = 340
            player.scores["level 1"] = nil          // removes the key
        }
        let strong = realm.objects(Player.self).filter("scores['level 2'] > 300")
        print(strong.first!.scores.keys)           // ["level 2"]
        #expect(strong.first!.scores.keys == ["level 2"])
    }

    @Test("an embedded object is created with its parent, queried through it, and deleted when let go")
    func embedded() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-embedded", objectTypes: [Order.self, Shipping.self]))
        try realm.write {
            realm.create(Order.self, value: ["number": 1, "shipping": ["street": "Main St 1", "city": "Porto"]])
        }
        let toPorto = realm.objects(Order.self).filter("shipping.city == 'Porto'")
        try realm.write { toPorto.first!.shipping = nil }   // deletes the Shipping object too
        #expect(realm.objects(Order.self).count == 1 && realm.dynamicObjects("Shipping").isEmpty)
    }

    @Test("a mixed value holds any kind, and queries compare numbers by value")
    func mixed() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-mixed", objectTypes: [Preference.self]))
        try realm.write {
            realm.create(Preference.self, value: ["key": "volume", "value": AnyRealmValue.int(7)])
            realm.create(Preference.self, value: ["key": "theme", "value": AnyRealmValue.string("dark")])
        }
        let loud = realm.objects(Preference.self).filter("value > 5")
        print(loud.first!.value.intValue!)        // 7
        #expect(loud.map(\.key) == ["volume"])
    }

    @Test("a mixed value holds lists and dictionaries, live in a managed object")
    func mixedCollections() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-mixed-collections", objectTypes: [Preference.self]))
        try realm.write {
            let layout = realm.create(Preference.self, value: ["key": "layout", "value": AnyRealmValue.fromDictionary([
                "columns": .fromArray([.string("name"), .string("date")]),
                "width": .int(800),
            ])])
            // A managed object's nested collections are live: changing one changes the stored value.
            layout.value.dictionaryValue?["columns"]?.listValue?.append(.string("size"))
        }
        let layout = realm.objects(Preference.self).filter("key == 'layout'").first!
        print(layout.value.dictionaryValue!["columns"]!.listValue!.count)        // 3
        #expect(layout.value.dictionaryValue?["columns"]?.listValue?.last == .string("size"))
        #expect(realm.objects(Preference.self).filter("value.@type == 'dictionary'").count == 1)
    }

    @Test("a custom persistable type is stored and queried as its persisted value")
    func customPersistable() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-custom", objectTypes: [Subscriber.self]))
        try realm.write {
            realm.create(Subscriber.self, value: ["email": "ana@example.com"])
        }
        let ana = realm.objects(Subscriber.self).where { $0.email == Email(persistedValue: "ana@example.com") }
        print(ana.first!.email.address)           // ana@example.com
        #expect(ana.first!.email.address == "ana@example.com")
    }

    @Test("a projection reads the object's properties through key paths")
    func projections() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-projections", objectTypes: [Contact.self, Address.self]))
        try realm.write {
            realm.create(Contact.self, value: ["name": "Ana", "address": ["street": "Main St 1", "city": "Porto"]])
            realm.create(Contact.self, value: ["name": "Bo"])
        }
        let cards = realm.objects(ContactCard.self).filter("address.city == 'Porto'")
        for card in cards {
            print(card.name, card.city ?? "-")     // Ana Porto
        }
        #expect(cards.map(\.name) == ["Ana"] && cards.first?.city == "Porto")
    }

    @Test("a Codable model decodes from JSON, is added, and an unmanaged copy encodes")
    func codable() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-codable", objectTypes: [Recipe.self]))
        let json = Data(#"[{"id": 1, "title": "Soup", "steps": ["chop", "boil"]}]"#.utf8)
        let recipes = try JSONDecoder().decode([Recipe].self, from: json)   // minutes: 0, its default
        try realm.write { realm.add(recipes, update: .modified) }
        let exported = try JSONEncoder().encode(recipes.map { Recipe(value: $0) })
        #expect(realm.object(ofType: Recipe.self, forPrimaryKey: 1)?.steps.count == 2)
        let decoded = try JSONDecoder().decode([Recipe].self, from: exported)
        #expect(decoded.first?.title == "Soup" && decoded.first?.minutes == 0 && decoded.first.map { Array($0.steps) } == ["chop", "boil"])
    }

    @Test("a property with a column name of its own is queried by the model's name")
    func columnNames() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-column-names", objectTypes: [Member.self]))
        try realm.write { realm.create(Member.self, value: ["id": 1, "firstName": "Ana"]) }
        #expect(realm.objects(Member.self).filter("firstName == 'Ana'").count == 1)
        #expect(realm.schema["Member"]?["firstName"]?.columnName == "first_name")
    }

    @Test("a value that does not fit the property's integer type is refused")
    func narrowIntegers() throws {
        final class Small: Object {
            @Persisted var value: Int8
        }
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-guide-int8", objectTypes: [Small.self]))
        #expect(Small(value: ["value": 100]).value == 100)
        try realm.write { realm.add(Small(value: ["value": Int8.max])) }
        #expect(realm.objects(Small.self).first?.value == .max)
    }
}
