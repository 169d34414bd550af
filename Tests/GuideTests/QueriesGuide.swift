import AsyncRealm
import Foundation
import Testing

// The examples of Docs/Queries.md, on the models of Docs/GettingStarted.md.

@Suite("Docs/Queries.md")
struct QueriesGuide {
    /// Ana with Rex (3), Fido (6) and Bo (1); Ben with Fido (2).
    static func realm(_ name: String) throws -> (Realm, rex: Dog) {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "queries-guide-\(name)", objectTypes: [Person.self, Dog.self]))
        var rex: Dog!
        try realm.write {
            let ana = realm.create(Person.self, value: ["name": "Ana"])
            let ben = realm.create(Person.self, value: ["name": "Ben"])
            rex = realm.create(Dog.self, value: ["name": "Rex", "age": 3, "owner": ana])
            let fido = realm.create(Dog.self, value: ["name": "Fido", "age": 6, "owner": ana])
            let bo = realm.create(Dog.self, value: ["name": "Bo", "age": 1, "owner": ana])
            ana.dogs.append(objectsIn: [rex, fido, bo])
            ben.dogs.append(realm.create(Dog.self, value: ["name": "fido", "age": 2, "owner": ben]))
        }
        return (realm, rex)
    }

    @Test("predicate strings and RealmPredicate")
    func strings() throws {
        let (realm, _) = try Self.realm("strings")
        let dogs = realm.objects(Dog.self)
        let older = dogs.filter("age > %@ AND name BEGINSWITH[c] %@", 3, "r")  // stops on a bad predicate
        let predicate = try RealmPredicate("owner.name == $0", "Ana")          // throws if it does not parse
        let owned = try dogs.filter(predicate)                                 // throws if it does not fit Dog
        print(older.count, owned.queryPlan)   // "scan of 'Dog', checking each object"
        #expect(older.isEmpty)
        #expect(owned.count == 3)
        #expect(throws: RealmError.self) { try RealmPredicate("age >>> 3") }
    }

    @Test("type-safe queries")
    func typeSafe() throws {
        let (realm, rex) = try Self.realm("where")
        let dogs = realm.objects(Dog.self)
        let people = realm.objects(Person.self)
        let fidos = dogs.where { $0.age > 1 && $0.name.contains("Fido", options: .caseInsensitive) }
        let ofA = dogs.where { $0.owner.name.starts(with: "A") }          // through a to-one link
        let withOldDog = people.where { $0.dogs.age > 5 }                 // any element
        let rexFans = people.where { $0.dogs.count >= 2 || $0.dogs.contains(rex) }
        let young = dogs.where { $0.age.in([1, 2]) && $0.age.contains(1...3) }
        #expect(fidos.count == 2)
        #expect(ofA.count == 3)
        #expect(withOldDog.map(\.name) == ["Ana"])
        #expect(rexFans.map(\.name) == ["Ana"])
        #expect(Set(young.map(\.name)) == ["Bo", "fido"])
    }

    @Test("sorting, distinct, limits and aggregates")
    func sortingAndAggregates() throws {
        let (realm, _) = try Self.realm("sorting")
        let dogs = realm.objects(Dog.self)
        let oldestFirst = dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])
        let oneOfEachName = dogs.distinct(by: ["name"])
        let top3 = dogs.filter("TRUEPREDICATE SORT(age DESC) LIMIT(3)")
        let totalAge: Int = dogs.sum(ofProperty: "age")
        let meanAge = dogs.average(ofProperty: "age") as Double?
        let maxAge: Int? = dogs.max(ofProperty: "age")
        #expect(oldestFirst.map(\.name) == ["Fido", "Rex", "fido", "Bo"])
        #expect(oneOfEachName.count == 4)
        #expect(top3.map(\.age) == [6, 3, 2])
        #expect(totalAge == 12 && meanAge == 3 && maxAge == 6)
    }

    @Test("sections")
    func sections() throws {
        let (realm, _) = try Self.realm("sections")
        let dogs = realm.objects(Dog.self)
        let byAge = dogs.sectioned(by: \.age, ascending: false)
        for section in byAge {
            print(section.key, section.map(\.name))
        }
        let oldest = byAge[IndexPath(item: 0, section: 0)]
        let byInitial = dogs.sectioned(by: { $0.name.prefix(1).uppercased() }, sortDescriptors: ["name"])
        #expect(byAge.allKeys == [6, 3, 2, 1])
        #expect(oldest.name == "Fido")
        #expect(byInitial.allKeys == ["B", "F", "R"])
        #expect(byInitial.map { $0.map(\.name) } == [["Bo"], ["Fido", "fido"], ["Rex"]])
    }

    @Test("queries on collections of values")
    func collectionsOfValues() throws {
        let contact = Contact()
        contact.tags.append(objectsIn: ["work", "family", "Workshop", "work"])
        let workTags = contact.tags.filter("self BEGINSWITH[c] %@", "work")   // [String]
        let sameTags = contact.tags.where { $0.starts(with: "work", options: .caseInsensitive) }
        let firstFamily = contact.tags.index(matching: "self == 'family'")    // Int?
        let eachOnce = contact.tags.distinct()                                // [String], first places kept
        #expect(workTags == ["work", "Workshop", "work"])
        #expect(sameTags == workTags)
        #expect(firstFamily == 1)
        #expect(eachOnce == ["work", "family", "Workshop"])
    }

    @Test("Foundation predicates")
    func foundationPredicates() throws {
        let (realm, _) = try Self.realm("foundation")
        let dogs = realm.objects(Dog.self)
        let rs = try dogs.filter(#Predicate<Dog> { $0.age > 1 && $0.name.starts(with: "R") })
        #expect(rs.map(\.name) == ["Rex"])
    }
}
