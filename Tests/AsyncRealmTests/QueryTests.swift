import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

@Suite("Queries: predicate strings, errors with positions, index use")
struct QueryTests {
    /// Three people and five dogs, the kind of data the reference's examples query.
    static func kennel(_ kind: RealmKind, _ directory: TemporaryDirectory) throws -> Realm {
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write {
            let ana = ObjectTests.makePerson(1, "Ana")
            ana.age = 30
            let bo = ObjectTests.makePerson(2, "Bo")
            bo.age = 17
            let cy = ObjectTests.makePerson(3, "Cy")
            let dogs = [("Fido", 1), ("Rex", 3), ("fidosaurus", 7), ("Réglisse", 2), ("Buddy", 1)].map { ObjectTests.makeDog($0.0, age: $0.1) }
            dogs[0].owner = ana
            dogs[1].owner = ana
            dogs[2].owner = bo
            ana.dogs.append(objectsIn: [dogs[0], dogs[1], dogs[1]])
            bo.dogs.append(dogs[2])
            realm.add([ana, bo, cy])
            realm.add(dogs)
        }
        return realm
    }

    @Test("the reference's examples: CONTAINS, equality, options, IN, BETWEEN, links, lists, aggregates, subqueries", arguments: RealmKind.allCases)
    func referenceExamples(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        func names(_ results: Results<Dog>) -> [String] { results.map(\.name) }
        #expect(names(dogs.filter("name CONTAINS 'Fido'")) == ["Fido"])
        #expect(names(dogs.filter("name CONTAINS[c] 'fido'")) == ["Fido", "fidosaurus"])
        #expect(names(dogs.filter("age == 1")) == ["Fido", "Buddy"])
        #expect(names(dogs.filter("age = 1 AND name BEGINSWITH 'B'")) == ["Buddy"])
        #expect(names(dogs.filter("age > %@ AND name BEGINSWITH[c] %@", 2, "r")) == ["Rex"])
        #expect(names(dogs.filter("name ==[cd] 'reglisse'")) == ["Réglisse"])
        #expect(names(dogs.filter("name LIKE '?ex'")) == ["Rex"])
        // One predicate string with different arguments each time (parsed once, then filled
        // in): plain values, values in lists and in subqueries, and %K, which changes the tree.
        let ages = [("Fido", 1), ("Rex", 3), ("fidosaurus", 7), ("Réglisse", 2), ("Buddy", 1)]
        for (age, owners) in [(1, ["Ana"]), (3, ["Ana"]), (4, [String]())] {
            let equal = ages.filter { $0.1 == age }.map(\.0)
            let either = ages.filter { ($0.1 == age || $0.1 == 7) && $0.0 != "Rex" }.map(\.0)
            #expect(names(dogs.filter("age == %@", age)) == equal)
            #expect(names(dogs.filter("age IN {%@, %@} AND name != %@", age, 7, "Rex")) == either)
            #expect(names(dogs.filter("%K == %@", "age", age)) == equal)
            #expect(names(dogs.filter("%K == %@", "name", "Rex")) == ["Rex"])
            #expect(realm.objects(Person.self).filter("SUBQUERY(dogs, $d, $d.age == %@).@count > 0", age).map(\.name) == owners)
        }
        // Keywords in any case.
        #expect(names(dogs.filter("age = 1 and name beginswith 'B'")) == ["Buddy"])
        #expect(names(dogs.filter("age between {2, 3} Or not name Contains[c] 'i'")) == ["Rex", "Réglisse", "Buddy"])
        #expect(names(dogs.filter("age IN {1, 7} anD name endsWith 'o'")) == ["Fido"])
        #expect(names(dogs.filter("name LIKE[c] 'f*s'")) == ["fidosaurus"])
        #expect(names(dogs.filter("age IN {2, 3}")) == ["Rex", "Réglisse"])
        #expect(names(dogs.filter("age IN %@", [7, 1])) == ["Fido", "fidosaurus", "Buddy"])
        #expect(names(dogs.filter("age BETWEEN {2, 3}")) == ["Rex", "Réglisse"])
        // NSPredicate's form, an array of the two bounds as the argument (RealmSwift's
        // `"intCol BETWEEN %@", [1, 2]`), also as a template given other bounds.
        #expect(names(dogs.filter("age BETWEEN %@", [2, 3])) == ["Rex", "Réglisse"])
        #expect(names(dogs.filter("age BETWEEN %@", [7, 7])) == ["fidosaurus"])
        #expect(names(dogs.filter("NOT (age < 3) OR name ENDSWITH 'y'")) == ["Rex", "fidosaurus", "Buddy"])
        #expect(names(dogs.filter("owner.name == 'Ana'")) == ["Fido", "Rex"])
        #expect(names(dogs.filter("owner == nil")) == ["Réglisse", "Buddy"])
        #expect(names(dogs.filter("owner.age >= 18")) == ["Fido", "Rex"])
        #expect(names(dogs.filter("ANY owners.name == 'Bo'")) == ["fidosaurus"])
        #expect(names(dogs.filter("owners.@count == 2")) == ["Rex"], "Rex is in Ana's list twice")
        #expect(names(dogs.filter("TRUEPREDICATE")).count == 5 && dogs.filter("FALSEPREDICATE").isEmpty)
        #expect(names(dogs.filter("%K == $1", "name", "Rex")) == ["Rex"])

        let people = realm.objects(Person.self)
        #expect(people.filter("dogs.@count > 1").map(\.name) == ["Ana"])
        #expect(people.filter("ANY dogs.age > 5").map(\.name) == ["Bo"])
        #expect(people.filter("ALL dogs.age < 5").map(\.name) == ["Ana", "Cy"], "ALL holds for an empty list")
        #expect(people.filter("NONE dogs.name == 'Rex'").map(\.name) == ["Bo", "Cy"])
        #expect(people.filter("dogs.@max.age == 7").map(\.name) == ["Bo"])
        #expect(people.filter("dogs.@sum.age == 7").map(\.name) == ["Ana", "Bo"], "Fido 1 + Rex 3 + Rex 3")
        #expect(people.filter("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'R').@count == 2").map(\.name) == ["Ana"])
        #expect(people.filter("age == nil").map(\.name) == ["Cy"])
        let ana = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(names(dogs.filter("owner == %@", ana)) == ["Fido", "Rex"])

        // Chained filters narrow each other, and results stay live.
        let young = dogs.filter("age < 3").filter("name != 'Buddy'")
        #expect(names(young) == ["Fido", "Réglisse"])
        try realm.write { realm.add(ObjectTests.makeDog("Ace", age: 0)) }
        #expect(names(young) == ["Fido", "Réglisse", "Ace"] && young.count == 3)
    }

    @Test("SORT, DISTINCT and LIMIT apply in written order, through to-one links, nil first")
    func modifiers() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(.inMemory, directory)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.filter("TRUEPREDICATE SORT(age DESC, name ASC)").map(\.name) == ["fidosaurus", "Rex", "Réglisse", "Buddy", "Fido"])
        #expect(dogs.filter("age < 5 SORT(owner.name ASC, name DESC)").map(\.name) == ["Réglisse", "Buddy", "Rex", "Fido"])
        #expect(dogs.filter("TRUEPREDICATE DISTINCT(age)").map(\.age) == [1, 3, 7, 2])
        #expect(dogs.filter("TRUEPREDICATE SORT(age ASC) LIMIT(2)").map(\.name) == ["Fido", "Buddy"])
        #expect(dogs.filter("TRUEPREDICATE LIMIT(2) SORT(age DESC)").map(\.name) == ["Rex", "Fido"])
        #expect(dogs.filter("age > 1 SORT(age ASC) LIMIT(1)").count == 1)
        let error = #expect(throws: RealmError.self) {
            try realm.objects(Person.self).filter(RealmPredicate("TRUEPREDICATE SORT(dogs.age ASC)"))
        }
        #expect(error?.position == 14 && error?.message.contains("one value per object") == true, "\(error?.message ?? "")")
    }

    @Test("sorted, distinct, min, max, sum and average on results", arguments: RealmKind.allCases)
    func sortingAndAggregates(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.sorted(byKeyPath: "age").map(\.name) == ["Fido", "Buddy", "Réglisse", "Rex", "fidosaurus"])
        #expect(dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")]).map(\.name)
                == ["fidosaurus", "Rex", "Réglisse", "Buddy", "Fido"])
        #expect(dogs.sorted(byKeyPath: "owner.name").map(\.name).prefix(2).sorted() == ["Buddy", "Réglisse"], "no owner sorts first")
        #expect(dogs.distinct(by: ["age"]).map(\.age) == [1, 3, 7, 2])
        #expect(dogs.filter("age < 5").sorted(byKeyPath: "name").filter("age > 1").map(\.name) == ["Rex", "Réglisse"])
        #expect(dogs.min(ofProperty: "age") == 1 && dogs.max(ofProperty: "age") == 7)
        #expect(dogs.sum(ofProperty: "age") == 14)
        #expect(dogs.average(ofProperty: "age") == 2.8)
        #expect(dogs.filter("age > 100").average(ofProperty: "age") as Double? == nil)
        #expect(dogs.filter("age > 100").sum(ofProperty: "age") == 0)
        #expect(dogs.max(ofProperty: "name") == "fidosaurus")
        let people = realm.objects(Person.self)
        #expect(people.sum(ofProperty: "age") == 47 && people.average(ofProperty: "age") == 23.5, "nil ages are left out")
        try realm.write { realm.add(ObjectTests.makeDog("Zed", age: 20)) }
        #expect(dogs.max(ofProperty: "age") == 20, "aggregates read the realm as it is now")
    }

    @Test("a filter's count is the number of objects it iterates, sorted or limited, before and after writes", arguments: RealmKind.allCases)
    func filteredCounts(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        let young = dogs.filter("age < 3")          // scanned on the stored rows
        let sorted = young.sorted(byKeyPath: "name") // a sort does not change the count
        let named = dogs.filter("name == 'Rex'")     // through the index on name
        let limited = dogs.filter("age < 3 LIMIT(2)")
        for _ in 0..<2 {
            #expect(young.count == 3 && sorted.count == 3 && named.count == 1 && limited.count == 2)
        }
        #expect(young.count == young.map(\.name).count && Array(sorted.map(\.name)) == ["Buddy", "Fido", "Réglisse"])
        // Counted before the write, the same results count what the realm holds after it.
        try realm.write {
            realm.add(ObjectTests.makeDog("Pip", age: 0))
            realm.delete(realm.objects(Dog.self).filter("name == 'Fido'"))
        }
        #expect(young.count == 3 && sorted.count == 3 && limited.count == 2)
        #expect(Array(sorted.map(\.name)) == ["Buddy", "Pip", "Réglisse"])
        try realm.write { dogs.filter("name == 'Buddy'").first!.age = 9 }
        #expect(young.count == 2, "a modified object leaves the filter")
        #expect(young.count == Array(young).count)
    }

    @Test("a lone integer comparison, tested inside the engine's scan, gives what Swift gives: nil, edges, negative and long values", arguments: RealmKind.allCases)
    func integerScans(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let ages: [Int?] = [nil, 0, 1, 30, 31, 127, 128, -1, -200, 1 << 40, Int.max, Int.min, nil, 42]
        try realm.write {
            for (index, age) in ages.enumerated() {
                let person = ObjectTests.makePerson(index + 1, "P\(index)")
                person.age = age
                realm.add(person)
            }
        }
        let people = realm.objects(Person.self)
        let cases: [(Results<Person>, (Int?) -> Bool)] = [
            (people.filter("age == %@", 31), { $0 == 31 }),
            (people.filter("age == %@", Int.min), { $0 == Int.min }),
            (people.filter("age < %@", 31), { $0.map { $0 < 31 } ?? false }),
            (people.filter("age < %@", Int.min), { _ in false }),
            (people.filter("age <= %@", -1), { $0.map { $0 <= -1 } ?? false }),
            (people.filter("age > %@", 127), { $0.map { $0 > 127 } ?? false }),
            (people.filter("age > %@", Int.max), { _ in false }),
            (people.filter("age >= %@", -200), { $0.map { $0 >= -200 } ?? false }),
            (people.filter("age >= %@", Int.max), { $0 == Int.max }),
            (people.filter("age BETWEEN {%@, %@}", 0, 128), { $0.map { (0...128).contains($0) } ?? false }),
            (people.filter("age BETWEEN {%@, %@}", 40, 30), { _ in false }),
            (people.filter("age != %@", 31), { $0 != 31 }),
            (people.filter("id > %@", 12), { _ in false }),
        ]
        for (index, (results, holds)) in cases.enumerated() {
            let expected = ages.indices.filter { index < 12 ? holds(ages[$0]) : $0 + 1 > 12 }
            #expect(results.count == expected.count, "case \(index)")
            // Iterating reads the rows the scan kept: the objects' values are the stored ones.
            #expect(results.map(\.id) == expected.map { $0 + 1 }, "case \(index)")
            #expect(results.map(\.age) == expected.map { ages[$0] }, "case \(index)")
        }
    }

    @Test("sums and averages over a whole class read every kind of stored number", arguments: RealmKind.allCases)
    func wholeClassTotals(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let integers: [Int] = [0, 1, 127, 128, 300, -1, -129, Int(Int32.max) * 3, Int.min + 5, Int.max - 7]
        let doubles: [Double] = [0, 0.5, -2.25, 1e300, -1e300, 7]
        try realm.write {
            for (index, value) in integers.enumerated() {
                let object = EveryType()
                object.int = value
                object.double = doubles[index % doubles.count]
                object.float = Float(index) / 4
                object.optionalInt = index.isMultiple(of: 3) ? nil : value
                realm.add(object)
            }
        }
        let all = realm.objects(EveryType.self)
        #expect(all.sum(ofProperty: "int") == integers.reduce(0, &+))
        #expect(all.sum(ofProperty: "double") == integers.indices.map { doubles[$0 % doubles.count] }.reduce(0, +))
        #expect(all.sum(ofProperty: "float") == Float(integers.indices.map { Double($0) / 4 }.reduce(0, +)))
        let present = integers.enumerated().filter { !$0.offset.isMultiple(of: 3) }.map(\.element)
        #expect(all.sum(ofProperty: "optionalInt") == present.reduce(0, &+))
        #expect(all.average(ofProperty: "optionalInt") == Double(present.reduce(0, &+)) / Double(present.count), "nil values are left out")
        // Past Int64 (Int.max - 7 and more): exact as a Decimal.
        let positive: Decimal = all.filter("int > 0").sum(ofProperty: "int")
        #expect(positive == Decimal(integers.filter { $0 > 0 }.reduce(Int128(0)) { $0 + Int128($1) }), "a filtered sum agrees")
    }

    @Test("type-safe where queries give what the same predicate strings give", arguments: RealmKind.allCases)
    func typeSafeQueries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        let people = realm.objects(Person.self)
        func same(_ typed: Results<Dog>, _ text: String) {
            #expect(typed.map(\.name) == dogs.filter(text).map(\.name), "\(text)")
            #expect(!typed.isEmpty, "\(text) matches something")
        }
        same(dogs.where { $0.age > 1 && $0.name.contains("e") }, "age > 1 AND name CONTAINS 'e'")
        same(dogs.where { $0.name.contains("fido", options: .caseInsensitive) }, "name CONTAINS[c] 'fido'")
        same(dogs.where { $0.name.equals("reglisse", options: [.caseInsensitive, .diacriticInsensitive]) }, "name ==[cd] 'reglisse'")
        same(dogs.where { $0.name.starts(with: "F") || $0.name.ends(with: "y") }, "name BEGINSWITH 'F' OR name ENDSWITH 'y'")
        same(dogs.where { !($0.age == 1) }, "NOT age == 1")
        same(dogs.where { $0.age.in([2, 7]) }, "age IN {2, 7}")
        same(dogs.where { $0.age.contains(2...3) }, "age BETWEEN {2, 3}")
        same(dogs.where { $0.name.like("?ex") }, "name LIKE '?ex'")
        same(dogs.where { $0.owner.name == "Ana" }, "owner.name == 'Ana'")
        same(dogs.where { $0.owner.age >= 18 }, "owner.age >= 18")
        same(dogs.where { $0.owners.name == "Bo" }, "ANY owners.name == 'Bo'")
        same(dogs.where { $0.owners.count == 2 }, "owners.@count == 2")
        // A property of a collection's objects, aggregated over them, as RealmSwift writes it.
        func samePeople(_ typed: Results<Person>, _ text: String) {
            #expect(typed.map(\.name) == people.filter(text).map(\.name), "\(text)")
            #expect(!typed.isEmpty, "\(text) matches something")
        }
        samePeople(people.where { $0.dogs.age.avg > 2 }, "dogs.@avg.age > 2")
        samePeople(people.where { $0.dogs.age.max == 3 && $0.dogs.age.min < 3 }, "dogs.@max.age == 3 AND dogs.@min.age < 3")
        samePeople(people.where { $0.dogs.age.sum == 7 }, "dogs.@sum.age == 7")
        same(dogs.where { $0.owners.age.sum > 20 }, "owners.@sum.age > 20")
        // A query's count over a list is a subquery, as RealmSwift writes one.
        samePeople(people.where { ($0.dogs.age > 2).count >= 1 }, "SUBQUERY(dogs, $d, $d.age > 2).@count >= 1")
        samePeople(people.where { ($0.dogs.age < 5 && $0.dogs.name.starts(with: "R")).count == 2 },
                   "SUBQUERY(dogs, $d, $d.age < 5 AND $d.name BEGINSWITH 'R').@count == 2")
        same(dogs.where { ($0.owners.age > 20 || $0.owners.name == "Bo").count > 0 }, "SUBQUERY(owners, $o, $o.age > 20 OR $o.name == 'Bo').@count > 0")
        let root = Query<Person>(realm: realm, path: [])
        let binder = QueryBinder(schemas: realm.objectSchemas)
        for (node, message) in [
            (((root.age > 5).count > 0).booleanNode, "compares properties of the objects of a list"),
            (((root.dogs.age > 5 && root.age > 1).count > 0).booleanNode, "must be reached through 'dogs'"),
        ] {
            do {
                _ = try binder.bind(node, to: try #require(realm.objectSchemas["Person"]))
                Issue.record("\(message): accepted")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
        #expect(people.where { $0.dogs.age > 5 }.map(\.name) == ["Bo"])
        #expect(people.where { $0.dogs.count > 1 }.map(\.name) == ["Ana"])
        #expect(people.where { $0.age == nil }.map(\.name) == ["Cy"])
        #expect(people.where { $0.age > 20 }.map(\.name) == ["Ana"])
        let rex = try #require(dogs.where { $0.name == "Rex" }.first)
        #expect(people.where { $0.dogs.contains(rex) }.map(\.name) == ["Ana"])
        #expect(dogs.where { $0.name == "Rex" }.queryPlan.hasPrefix("index on 'Dog.name'"))
        #expect(dogs.where { $0.age > 0 }.where { $0.name.starts(with: "R") }.map(\.name) == ["Rex", "Réglisse"])

        // Every property type: a Bool alone is a predicate; dates, UUIDs and doubles compare.
        let first = EveryType(), second = EveryType()
        first.bool = true
        first.double = 2.5
        first.date = Date(timeIntervalSince1970: 1_700_000_000)
        second.int8 = 7
        try realm.write { realm.add([first, second]) }
        let all = realm.objects(EveryType.self)
        #expect(all.where { $0.bool }.count == 1 && all.where { !$0.bool }.count == 1)
        #expect(all.where { $0.double > 2 }.count == 1 && all.where { $0.int8 == 7 }.count == 1)
        #expect(all.where { $0.date > Date(timeIntervalSince1970: 1_600_000_000) }.count == 1)
        #expect(all.where { $0.uuid == first.uuid }.count == 1, "each got a UUID of its own")
        #expect(all.filter("date == T1700000000:0").count == 1 && all.filter("date == 2023-11-14@22:13:20").count == 1)
    }

    @Test("Foundation's #Predicate translates into the same queries; expressions without a query form throw", arguments: RealmKind.allCases)
    func foundationPredicates(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        func same(_ predicate: Predicate<Dog>, _ text: String) throws {
            let translated = try dogs.filter(predicate)
            #expect(translated.map(\.name) == dogs.filter(text).map(\.name), "\(text)")
            #expect(!translated.isEmpty, "\(text) matches something")
        }
        try same(#Predicate<Dog> { $0.age > 1 && $0.name.starts(with: "R") }, "age > 1 AND name BEGINSWITH 'R'")
        try same(#Predicate<Dog> { !($0.age == 1) || $0.name == "Fido" }, "NOT age == 1 OR name == 'Fido'")
        try same(#Predicate<Dog> { $0.age != 3 && $0.age <= 2 }, "age != 3 AND age <= 2")
        try same(#Predicate<Dog> { $0.name.contains("id") }, "name CONTAINS 'id'")
        try same(#Predicate<Dog> { [2, 7].contains($0.age) }, "age IN {2, 7}")
        try same(#Predicate<Dog> { (2...3).contains($0.age) }, "age BETWEEN {2, 3}")
        try same(#Predicate<Dog> { (1..<3).contains($0.age) }, "age >= 1 AND age < 3")
        try same(#Predicate<Dog> { $0.owner == nil }, "owner == nil")
        try same(#Predicate<Dog> { $0.owner?.name == "Ana" }, "owner.name == 'Ana'")
        try same(#Predicate<Dog> { $0.owner?.name != "Ana" }, "owner.name != 'Ana'")
        #expect(try dogs.filter(#Predicate<Dog> { $0.name == "Rex" }).queryPlan.hasPrefix("index on 'Dog.name'"))

        let error = #expect(throws: RealmError.self) { try dogs.filter(#Predicate<Dog> { $0.age + 1 > 2 }) }
        #expect(error?.code == .invalidQuery && error?.message.contains("Arithmetic") == true, "\(error?.message ?? "")")
    }

    @Test("lists and linking objects filter, sort and aggregate in their own order; deleting filtered results deletes only them", arguments: RealmKind.allCases)
    func collectionQueries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let ana = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(ana.dogs.map(\.name) == ["Fido", "Rex", "Rex"])
        #expect(ana.dogs.filter("age > 1").map(\.name) == ["Rex", "Rex"], "a list's duplicates stay")
        #expect(ana.dogs.where { $0.name.starts(with: "F") }.map(\.name) == ["Fido"])
        #expect(try ana.dogs.filter(#Predicate<Dog> { $0.age < 2 }).map(\.name) == ["Fido"])
        #expect(ana.dogs.sorted(byKeyPath: "age", ascending: false).map(\.name) == ["Rex", "Rex", "Fido"])
        #expect(ana.dogs.sum(ofProperty: "age") == 7 && ana.dogs.max(ofProperty: "age") == 3)
        #expect(ana.dogs.filter("age > 1").queryPlan.hasPrefix("the objects of a list"))
        let rex = try #require(realm.objects(Dog.self).filter("name == 'Rex'").first)
        #expect(rex.owners.filter("name == 'Ana'").count == 2 && rex.owners.filter("name == 'Bo'").isEmpty)

        let live = ana.dogs.filter("age > 1")
        try realm.write { ana.dogs.append(realm.objects(Dog.self).filter("name == 'fidosaurus'").first!) }
        #expect(live.map(\.name) == ["Rex", "Rex", "fidosaurus"], "results over a list follow the list")

        try realm.write { realm.delete(realm.objects(Dog.self).filter("age >= 3")) }
        #expect(realm.objects(Dog.self).map(\.name) == ["Fido", "Réglisse", "Buddy"], "only the matching objects were deleted")
        #expect(ana.dogs.map(\.name) == ["Fido"])
    }

    @Test("RealmCollection and AnyRealmCollection: index(of:), index(matching:), value(forKey:), setValue(_:forKey:), objects(at:)", arguments: RealmKind.allCases)
    func realmCollection(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self)
        let ana = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let rex = try #require(dogs.filter("name == 'Rex'").first)
        #expect(dogs.index(of: rex) == 1 && ana.dogs.index(of: rex) == 1)
        #expect(dogs.index(matching: "age > %@", 2) == 1 && dogs.index(matching: "age > 100") == nil)
        #expect(dogs.index(matching: { $0.name.ends(with: "y") }) == 4)
        #expect(dogs.value(forKey: "name") as? [String] == ["Fido", "Rex", "fidosaurus", "Réglisse", "Buddy"])
        #expect(dogs.objects(at: IndexSet([0, 4])).map(\.name) == ["Fido", "Buddy"])
        try realm.write { ana.dogs.setValue(9, forKey: "age") }
        #expect(dogs.filter("age == 9").map(\.name) == ["Fido", "Rex"])

        let collections: [AnyRealmCollection<Dog>] = [AnyRealmCollection(dogs), AnyRealmCollection(ana.dogs)]
        #expect(collections.map(\.count) == [5, 3])
        #expect(collections.map { $0.filter("age == 9").count } == [2, 3])
        #expect(collections.map { $0.sorted(byKeyPath: "name", ascending: true).first?.name } == ["Buddy", "Fido"])
        #expect(collections[1].sum(ofProperty: "age") == 27 && collections[0].realm === realm)
        let owners = AnyRealmCollection(rex.owners)
        #expect(owners.count == 2 && owners.filter("name == 'Ana'").count == 2 && owners.realm === realm)
    }

    @Test("equality and IN on an indexed property or a primary key use the index; other queries scan")
    func plans() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(.inMemory, directory)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.filter("name == 'Rex'").queryPlan == "index on 'Dog.name' (1 value), then checking each candidate")
        #expect(dogs.filter("age > 1 AND name IN {'Rex', 'Fido'}").queryPlan.hasPrefix("index on 'Dog.name' (2 values)"))
        #expect(dogs.filter("age > 1").queryPlan == "scan of 'Dog', checking each object")
        #expect(dogs.filter("name ==[c] 'rex'").queryPlan.hasPrefix("scan"), "a case-insensitive match cannot use the index")
        #expect(realm.objects(Person.self).filter("id == 2").queryPlan.hasPrefix("primary key on 'Person.id'"))
        #expect(dogs.filter("name == 'Rex' OR age == 7").queryPlan.hasPrefix("scan"))
        #expect(dogs.filter("name == 'Rex'").map(\.age) == [3])
        #expect(dogs.filter("name IN {'Rex', 'Nobody', 'Buddy'}").map(\.name) == ["Rex", "Buddy"])

        // Ranges on an indexed integer (here the primary key) read a range of the index.
        let people = realm.objects(Person.self)
        #expect(people.filter("id > 1").queryPlan == "primary key on 'Person.id' (a range), then checking each candidate")
        #expect(people.filter("id > 1").map(\.name) == ["Bo", "Cy"] && people.filter("id >= 2").map(\.name) == ["Bo", "Cy"])
        #expect(people.filter("id < 2").map(\.name) == ["Ana"] && people.filter("id <= 2").map(\.name) == ["Ana", "Bo"])
        #expect(people.filter("id BETWEEN {2, 3}").map(\.name) == ["Bo", "Cy"] && people.filter("id BETWEEN {3, 2}").isEmpty)
        #expect(people.filter("id > -5 AND id < 3").map(\.name) == ["Ana", "Bo"])
        #expect(people.filter("id == 2 AND id > 1").queryPlan.contains("(1 value)"), "an equality beats a range")
        #expect(people.filter("id > 1 AND id == 2").queryPlan.contains("(1 value)"), "on either side")
        #expect(people.filter("id > 1 AND id == 2").map(\.name) == ["Bo"] && people.filter("id == 2 AND id > 2").isEmpty)
        #expect(people.where { $0.id > 2 }.map(\.name) == ["Cy"])
    }

    static let parseErrors: [(String, Int, String)] = [
        ("age >", 5, "expected a property or a value"),
        ("name == 'abc", 8, "not closed"),
        ("age > 3 AND", 11, "expected a property or a value"),
        ("age > 3 )", 8, "unexpected ')'"),
        ("name BEGINSWITH[x] 'a'", 16, "string options"),
        ("age >= %@", 7, "only 0 were given"),
        ("(age > 3", 8, "expected ')'"),
        ("age ~ 3", 4, "unexpected character"),
        ("dogs.@foo > 1", 5, "unknown collection operator"),
        ("age BETWEEN {1}", 12, "two bounds"),
        ("created > 2024-13-01@00:00:00", 10, "not a valid date"),
        ("data == B64\"a!\"", 8, "not base64"),
        ("age == 0x8000000000000000", 7, "does not fit"),
        ("age == +", 7, "unexpected character '+'"),
        ("age == 0x", 8, "unexpected 'x'"),
    ]

    @Test("text that does not parse throws from RealmPredicate with the position", arguments: 0..<15)
    func parseError(index: Int) {
        let (text, position, message) = Self.parseErrors[index]
        let error = #expect(throws: RealmError.self) { try RealmPredicate(text) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.position == position, "\(text): \(error?.message ?? "")")
        #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "")")
    }

    @Test("an argument with no query form throws, naming its position and type")
    func unusableArgument() throws {
        struct Unusable {}
        let error = #expect(throws: RealmError.self) { try RealmPredicate("age == %@ AND name == %@", 3, Unusable()) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("argument 2 (Unusable)") == true, "\(error?.message ?? "")")
        // The arguments before it convert as they should.
        #expect(try RealmPredicate.values(of: [3, "x"]).array == [.int(3), .string("x")])
        let one = try RealmPredicate.values(of: ["x"])
        #expect(one.count == 1 && one[0] == .string("x") && one.array == [.string("x")])
        #expect(throws: RealmError.self) { try RealmPredicate.values(of: [Unusable()]) }
    }

    static let bindErrors: [(String, Int, String)] = [
        ("nmae == 'x'", 0, "'Dog' has no property 'nmae'"),
        ("age == 'x'", 4, "cannot compare 'age' (int) with a string"),
        ("owner.nmae == 'x'", 0, "'Person' has no property 'nmae'"),
        ("name > 3", 5, "cannot compare 'name' (string) with a number"),
        ("age CONTAINS 'a'", 4, "needs a string or data property"),
        ("ANY name == 'x'", 4, "ANY needs a key path through a list"),
        ("owner > %@", 6, "has no order"),
        ("age.value == 1", 0, "it has no properties"),
    ]

    @Test("a predicate that does not fit the class throws from filter with the position", arguments: 0..<8)
    func bindError(index: Int) throws {
        let (text, position, message) = Self.bindErrors[index]
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        let person = ObjectTests.makePerson(9, "Ana")
        try realm.write { realm.add(person) }
        let predicate = try RealmPredicate(text, person)
        let error = #expect(throws: RealmError.self) { try realm.objects(Dog.self).filter(predicate) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.position == position, "\(text): \(error?.message ?? "")")
        #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "")")
    }

    /// What filtering gave: the names of the dogs found, in order, or the error's code,
    /// position and message.
    private enum Outcome: Equatable {
        case found([String])
        case failed(RealmError.Code, Int?, String)

        init(_ filter: () throws -> Results<Dog>) {
            do {
                self = .found(Array(try filter()).map(\.name))
            } catch let error as RealmError {
                self = .failed(error.code, error.position, error.message)
            } catch {
                self = .failed(.invalidQuery, nil, "\(error)")
            }
        }
    }

    @Test("a predicate string bound once per class gives, with each call's arguments, what binding it afresh gives", arguments: RealmKind.allCases)
    func boundTemplates(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let ana = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let bo = try #require(realm.object(ofType: Person.self, forPrimaryKey: 2))
        let rex = try #require(realm.objects(Dog.self).filter("name == 'Rex'").first)
        let none: Int? = nil
        let calls: [(String, [[Any]])] = [
            ("name == %@ AND age > %@", [["Rex", 1], ["Fido", 0], ["Rex", 5], ["Rex", "three"], ["Buddy", 0.5]]),
            ("age IN %@", [[[1, 3]], [[7]], [[Int]()], [["a"]]]),
            ("age BETWEEN {%@, %@}", [[1, 3], [5, 1], [2, "x"]]),
            ("%@ < age OR name BEGINSWITH[c] %@", [[2, "f"], [6, "r"], [none as Any, "b"], [1, 2]]),
            ("owner == %@", [[ana], [bo], [none as Any], [rex]]),
            ("NOT name CONTAINS %@ AND age >= 2", [["o"], ["x"], [3]]),
            ("ANY owners.name == %@ OR owner.age > %@", [["Ana", 20], ["Bo", 40], ["Cy", "old"]]),
            ("SUBQUERY(owners, $p, $p.name == %@).@count > 0", [["Ana"], ["Cy"]]),
            ("%K == %@", [["name", "Rex"], ["age", 1], ["age", "Rex"]]),
            ("name == %@ SORT(age DESC)", [["Rex"], ["Fido"]]),
            ("age > 1 LIMIT(2)", [[]]),
            ("name == %@", [["Rex"], ["Rex", "extra"]]),
            // A column with one argument is finished without the general binding: turned
            // around, with a case-insensitive operator, IN with one value, nil, a wrong type.
            ("%@ == name", [["Rex"], [3], [none as Any]]),
            ("%@ >= age AND name ==[c] %@", [[3, "REX"], [1, "fido"], ["x", "rex"]]),
            ("age IN %@", [[3], [1]]),
        ]
        var found = 0
        var failed = 0
        for (text, argumentLists) in calls {
            // Twice over, so that every call after the first finds the string's template.
            for arguments in argumentLists + argumentLists {
                let fresh = Outcome { try realm.objects(Dog.self).filter(RealmPredicate(text, arguments: arguments)) }
                let templated = Outcome { try realm.objects(Dog.self).filter(text, values: RealmPredicate.values(of: arguments)) }
                #expect(templated == fresh, "\(text) with \(arguments)")
                if case .found(let names) = fresh, !names.isEmpty { found += 1 } else if case .failed = fresh { failed += 1 }
            }
        }
        // The calls find objects and meet errors, both.
        #expect(found > 20 && failed > 10, "found \(found), failed \(failed)")
        // Results of one template kept side by side each keep their own argument, also after
        // the realm changes and they are evaluated again.
        let dogs = realm.objects(Dog.self)
        let kept = ["Rex", "Fido", "Buddy", "Rex"].map { dogs.filter("name == %@", $0) }
        #expect(kept.map { $0.map(\.name) } == [["Rex"], ["Fido"], ["Buddy"], ["Rex"]])
        try realm.write { realm.add(Dog(value: ["name": "Fido", "age": 9])) }
        #expect(kept.map(\.count) == [1, 2, 1, 1])
    }

    @Test("filter with a string stops with the error's message")
    func filterStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "filter-stops"))
            _ = realm.objects(Dog.self).filter("age >")
        }
    }
}

/// Numbers and bytes as Realm's query language writes them.
final class LiteralTarget: Object {
    @Persisted var count = 0
    @Persisted var ratio = 0.0
    @Persisted var level: Float = 0
    @Persisted var bytes = Data()
    @Persisted var information = 0
    @Persisted var flag = false
    @Persisted var note: String?
    /// A property named as a keyword: `#any` in a predicate.
    @Persisted var any: Int?
}

extension QueryTests {
    @Test("literals as Realm's query language writes them: 2.5f, 0x1F, +3, inf, -infinity, nan and B64\"...\"", arguments: RealmKind.allCases)
    func realmLiterals(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [LiteralTarget.self]))
        try realm.write {
            realm.create(LiteralTarget.self, value: ["count": 31, "ratio": Double.infinity, "level": Float(2.5), "bytes": Data("hi".utf8), "information": 7])
            realm.create(LiteralTarget.self, value: ["count": -3, "ratio": -Double.infinity, "level": Float(3)])
            realm.create(LiteralTarget.self, value: ["count": 0, "ratio": Double.nan])
        }
        let objects = realm.objects(LiteralTarget.self)
        func counts(_ predicate: String) -> [Int] { objects.filter(predicate).map(\.count) }
        #expect(counts("level == 2.5f") == [31] && counts("level == 3f") == [-3] && counts("level > 1.0e0f") == [31, -3])
        #expect(counts("count == 0x1F") == [31] && counts("count == 0X1f") == [31] && counts("count == -0x3") == [-3])
        #expect(counts("count == +31") == [31] && counts("count > +0") == [31] && counts("ratio == +inf") == [31])
        #expect(counts("ratio == inf") == [31] && counts("ratio == INFINITY") == [31])
        #expect(counts("ratio == -inf") == [-3] && counts("ratio == -Infinity") == [-3])
        #expect(counts("ratio == NaN") == [0] && objects.filter("ratio == nan").count == objects.filter("ratio == %@", Double.nan).count)
        #expect(counts("bytes == B64\"aGk=\"") == [31] && counts("bytes == B64\"\"") == [-3, 0])
        // A name that starts as a number's name does is still a name.
        #expect(counts("information == 7") == [31])
    }

    @Test("NSPredicate's spellings RealmSwift's predicates use: YES and NO, NSNull() for nil, and #name for a property named as a keyword", arguments: RealmKind.allCases)
    func predicateSpellings(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [LiteralTarget.self]))
        try realm.write {
            realm.create(LiteralTarget.self, value: ["count": 1, "flag": true, "note": "n", "any": 5])
            realm.create(LiteralTarget.self, value: ["count": 2])
        }
        let objects = realm.objects(LiteralTarget.self)
        func counts(_ predicate: String) -> [Int] { objects.filter(predicate).map(\.count) }
        #expect(counts("flag == YES") == [1] && counts("flag == no") == [2] && counts("flag != Yes") == [2])
        #expect(objects.filter("note == %@", NSNull()).map(\.count) == [2] && objects.filter("note != %@", NSNull()).map(\.count) == [1])
        #expect(counts("#any == 5") == [1] && counts("#any == nil") == [2] && counts("#any > 1 AND count > 0") == [1])
        #expect(objects.filter("TRUEPREDICATE SORT(#any DESC)").map(\.count) == [1, 2])
    }
}

/// Floats that a double does not hold exactly.
final class FloatTarget: Object {
    @Persisted var id = 0
    @Persisted var level: Float = 0
    @Persisted var maybe: Float?
    @Persisted var levels: List<Float>
    @Persisted var named: Map<String, Float>
}

extension QueryTests {
    @Test("a Float property compares with a number made a float, as Realm makes a constant the property's type", arguments: RealmKind.allCases)
    func floatConstants(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [FloatTarget.self]))
        try realm.write {
            realm.create(FloatTarget.self, value: ["id": 1, "level": Float(0.1), "maybe": Float(0.1), "levels": [Float(0.1)], "named": ["a": Float(0.1)]])
            realm.create(FloatTarget.self, value: ["id": 2, "level": Float(0.7), "levels": [Float(16_777_216)]])
        }
        let objects = realm.objects(FloatTarget.self)
        func ids(_ predicate: String, _ arguments: Any...) throws -> [Int] { try objects.filter(RealmPredicate(predicate, arguments: arguments)).map(\.id) }
        #expect(try ids("level == 0.1") == [1] && ids("level == %@", 0.1) == [1] && ids("level != 0.1") == [2])
        #expect(try ids("level > 0.1") == [2] && ids("level <= 0.1") == [1] && ids("level >= 0.1") == [1, 2])
        #expect(try ids("level BETWEEN {0.1, 0.7}") == [1, 2] && ids("level IN {0.7, 0.3}") == [2])
        #expect(try ids("maybe == 0.1") == [1] && ids("ANY levels == 0.1") == [1] && ids("named['a'] == 0.1") == [1])
        // An integer is made a float too: 16,777,217 is 16,777,216 as a float.
        #expect(try ids("ANY levels == 16777217") == [2])
        // The type-checked form agrees, and so does a predicate string bound once and given its
        // argument at each call (a template's direct argument).
        #expect(objects.where { $0.level == 0.1 }.map(\.id) == [1] && objects.where { $0.level > 0.1 }.map(\.id) == [2])
        for _ in 0..<3 { #expect(objects.filter("level == %@", 0.1).map(\.id) == [1] && objects.filter("level > %@", 0.1).map(\.id) == [2]) }
    }
}

extension QueryTests {
    @Test("SELF is the object itself: SELF == %@, SELF != %@ and SELF IN %@ with objects, an array or results", arguments: RealmKind.allCases)
    func selfComparisons(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.kennel(kind, directory)
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "name")
        let (buddy, rex) = (try #require(dogs.first), try #require(dogs.filter("name == 'Rex'").first))
        func names(_ predicate: String, _ arguments: Any...) throws -> [String] {
            try dogs.filter(RealmPredicate(predicate, arguments: arguments)).map(\.name)
        }
        #expect(try names("SELF == %@", rex) == ["Rex"] && names("self != %@", rex).count == 4)
        #expect(try names("SELF IN %@", [buddy, rex]) == ["Buddy", "Rex"])
        #expect(try names("self IN %@", dogs.filter("age > 2")) == ["Rex", "fidosaurus"])
        #expect(try names("SELF == nil").isEmpty && names("SELF != nil").count == 5)
        #expect(try names("SELF IN %@ AND age > 1", [buddy, rex]) == ["Rex"])
        // A person is no dog: comparing with one is refused, as in a link (row keys are per
        // class, so it would otherwise match the dog with its key).
        let ana = try #require(realm.objects(Person.self).filter("name == 'Ana'").first)
        let wrongClass = #expect(throws: RealmError.self) { try names("SELF == %@", ana) }
        #expect(wrongClass?.message.contains("cannot compare 'SELF' (Dog) with an object of class 'Person'") == true)
        #expect(throws: RealmError.self) { try names("owner IN %@", [ana, rex]) }
        #expect(throws: RealmError.self) { try realm.objects(Person.self).filter(RealmPredicate("ANY dogs == %@", ana)) }
        // A class's own property named self would win; none is, so ordering is refused as for links.
        #expect(throws: RealmError.self) { try dogs.filter(RealmPredicate("SELF > %@", rex)) }
    }
}
