import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Random predicates, evaluated by the query engine and by plain Swift over the same objects.
@Suite("Queries against a plain Swift evaluator")
struct QueryDifferentialTests {
    struct PersonModel {
        let key: Int
        let name: String
        let age: Int?
        var dogs: [Int] = []
    }

    struct DogModel {
        let name: String
        let age: Int
        let owner: Int?
    }

    /// A generated predicate: its text, the same predicate as a type-safe query (nil where
    /// there is none: LIKE with [d]), and what it means in Swift.
    struct Generated {
        let text: String
        let query: ((Query<Dog>) -> Query<Bool>)?
        let holds: (Int) -> Bool

        init(text: String, query: ((Query<Dog>) -> Query<Bool>)?, holds: @escaping (Int) -> Bool) {
            self.text = text
            self.query = query
            self.holds = holds
        }
    }

    static let names = ["Rex", "rex", "Fido", "fidosaurus", "Réglisse", "reglisse", "Buddy", "Ace", "Zoë", "zoe", "Bo", ""]

    struct Generator {
        var random: SeededRandom
        let dogs: [DogModel]
        let people: [PersonModel]
        /// How many list entries of people hold each dog, and each dog's name folded for each
        /// string option: computed once, so that evaluating a predicate over thousands of dogs
        /// does not recount the lists or fold the same few names again for every dog.
        let ownerCounts: [Int]
        let foldedNames: [String: [String]]

        init(random: SeededRandom, dogs: [DogModel], people: [PersonModel]) {
            self.random = random
            self.dogs = dogs
            self.people = people
            var counts = [Int](repeating: 0, count: dogs.count)
            for person in people { for dog in person.dogs { counts[dog] += 1 } }
            ownerCounts = counts
            var folded: [String: [String]] = [:]
            for options in ["", "[c]", "[d]", "[cd]"] {
                let byName = Dictionary(Set(dogs.map(\.name)).map { ($0, Self.fold($0, options)) }, uniquingKeysWith: { first, _ in first })
                folded[options] = dogs.map { byName[$0.name]! }
            }
            foldedNames = folded
        }

        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

        static func fold(_ text: String, _ options: String) -> String {
            var folding: String.CompareOptions = []
            if options.contains("c") { folding.insert(.caseInsensitive) }
            if options.contains("d") { folding.insert(.diacriticInsensitive) }
            return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
        }

        mutating func comparison(_ value: Int, _ op: String, _ other: Int) -> Bool {
            switch op {
            case "==": return value == other
            case "!=": return value != other
            case "<": return value < other
            case "<=": return value <= other
            case ">": return value > other
            default: return value >= other
            }
        }

        mutating func atom() -> Generated {
            let dogs = self.dogs, people = self.people, ownerCounts = self.ownerCounts
            switch int(0...7) {
            case 0:
                let op = pick(["==", "!=", "<", "<=", ">", ">="]), n = int(-1...16)
                var copy = self
                let query: (Query<Dog>) -> Query<Bool> = { dog in
                    switch op {
                    case "==": return dog.age == n
                    case "!=": return dog.age != n
                    case "<": return dog.age < n
                    case "<=": return dog.age <= n
                    case ">": return dog.age > n
                    default: return dog.age >= n
                    }
                }
                return Generated(text: "age \(op) \(n)", query: query) { index in copy.comparison(dogs[index].age, op, n) }
            case 1:
                let values = (0..<int(1...4)).map { _ in int(0...15) }
                return Generated(text: "age IN {\(values.map(String.init).joined(separator: ", "))}", query: { $0.age.in(values) }) { values.contains(dogs[$0].age) }
            case 2:
                let low = int(0...10), high = int(low...15)
                return Generated(text: "age BETWEEN {\(low), \(high)}", query: { $0.age.contains(low...high) }) { (low...high).contains(dogs[$0].age) }
            case 3:
                let op = pick(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"])
                let options = pick(["", "[c]", "[d]", "[cd]"])
                var pattern = pick(QueryDifferentialTests.names)
                if op != "==" && op != "!=" && !pattern.isEmpty { pattern = String(pattern.prefix(int(1...pattern.count))) }
                if op == "LIKE" { pattern = pick(["*e*", "?ex", "f*s", "*", "R*", "?o"]) }
                var stringOptions: StringOptions = []
                if options.contains("c") { stringOptions.insert(.caseInsensitive) }
                if options.contains("d") { stringOptions.insert(.diacriticInsensitive) }
                let query: ((Query<Dog>) -> Query<Bool>)? = switch op {
                case "==": { $0.name.equals(pattern, options: stringOptions) }
                case "!=": { $0.name.notEquals(pattern, options: stringOptions) }
                case "BEGINSWITH": { $0.name.starts(with: pattern, options: stringOptions) }
                case "ENDSWITH": { $0.name.ends(with: pattern, options: stringOptions) }
                case "CONTAINS": { $0.name.contains(pattern, options: stringOptions) }
                default: options.contains("d") ? nil : { $0.name.like(pattern, caseInsensitive: options.contains("c")) }
                }
                let names = foldedNames[options]!, needle = Self.fold(pattern, options)
                return Generated(text: "name \(op)\(options) \(Self.quoted(pattern))", query: query) { index in
                    let name = names[index]
                    switch op {
                    case "==": return name == needle
                    case "!=": return name != needle
                    case "BEGINSWITH": return name.unicodeScalars.starts(with: needle.unicodeScalars)
                    case "ENDSWITH": return name.unicodeScalars.reversed().starts(with: needle.unicodeScalars.reversed())
                    case "CONTAINS": return needle.isEmpty || name.range(of: needle, options: .literal) != nil
                    default: return Self.like(Array(name.unicodeScalars), Array(needle.unicodeScalars))
                    }
                }
            case 4:
                let name = pick(people.map(\.name))
                return Generated(text: "owner.name == \(Self.quoted(name))", query: { $0.owner.name == name }) { index in dogs[index].owner.map { people[$0].name == name } ?? false }
            case 5:
                return Generated(text: "owner == nil", query: { $0.owner == nil }) { dogs[$0].owner == nil }
            case 6:
                let n = int(0...60)
                return Generated(text: "owner.age > \(n)", query: { $0.owner.age > n }) { index in (dogs[index].owner.flatMap { people[$0].age }).map { $0 > n } ?? false }
            default:
                let n = int(0...3)
                return Generated(text: "owners.@count >= \(n)", query: { $0.owners.count >= n }) { ownerCounts[$0] >= n }
            }
        }

        mutating func predicate(depth: Int) -> Generated {
            guard depth > 0, int(0...2) > 0 else { return atom() }
            switch int(0...2) {
            case 0:
                let left = predicate(depth: depth - 1), right = predicate(depth: depth - 1)
                return Generated(text: "(\(left.text)) AND (\(right.text))", query: Self.combine(left.query, right.query, &&)) { left.holds($0) && right.holds($0) }
            case 1:
                let left = predicate(depth: depth - 1), right = predicate(depth: depth - 1)
                return Generated(text: "(\(left.text)) OR (\(right.text))", query: Self.combine(left.query, right.query, ||)) { left.holds($0) || right.holds($0) }
            default:
                let inner = predicate(depth: depth - 1)
                return Generated(text: "NOT (\(inner.text))", query: inner.query.map { query in { !query($0) } }) { !inner.holds($0) }
            }
        }

        static func combine(_ left: ((Query<Dog>) -> Query<Bool>)?, _ right: ((Query<Dog>) -> Query<Bool>)?,
                            _ operation: @escaping (Query<Bool>, Query<Bool>) -> Query<Bool>) -> ((Query<Dog>) -> Query<Bool>)? {
            guard let left, let right else { return nil }
            return { operation(left($0), right($0)) }
        }

        static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
            guard let first = pattern.first else { return text.isEmpty }
            if first == "*" {
                return (0...text.count).contains { like(Array(text[$0...]), Array(pattern.dropFirst())) }
            }
            guard let head = text.first, first == "?" || first == head else { return false }
            return like(Array(text.dropFirst()), Array(pattern.dropFirst()))
        }
    }

    /// The seed of a run: `ASYNCREALM_SEED` if set, random otherwise (printed on failure).
    static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["ASYNCREALM_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
    }

    /// The data set of `seed`: 3,000 dogs and 300 people, with owners, lists and linking
    /// objects, as models and in a realm; and the key each dog got.
    static func kennel(seed: UInt64, kind: RealmKind, directory: TemporaryDirectory) throws -> (realm: Realm, dogs: [DogModel], people: [PersonModel], keyOfIndex: [UInt64]) {
        let (dogCount, personCount) = (3_000, 300)
        var random = SeededRandom(seed: seed)
        var people = (0..<personCount).map { index in
            PersonModel(key: index, name: "P\(index % 25)", age: random.next() % 4 == 0 ? nil : Int(random.next() % 70))
        }
        let dogs = (0..<dogCount).map { _ in
            DogModel(name: Self.names[Int(random.next() % UInt64(Self.names.count))], age: Int(random.next() % 16),
                     owner: random.next() % 5 == 0 ? nil : Int(random.next() % UInt64(personCount)))
        }
        for index in people.indices {
            people[index].dogs = (0..<Int(random.next() % 5)).map { _ in Int(random.next() % UInt64(dogCount)) }
        }

        let realm = try Realm(configuration: kind.configuration(directory))
        let objects = dogs.map { ObjectTests.makeDog($0.name, age: $0.age) }
        try realm.write {
            let persons = people.map { model in
                let person = ObjectTests.makePerson(model.key, model.name)
                person.age = model.age
                return person
            }
            for (dog, model) in zip(objects, dogs) { dog.owner = model.owner.map { persons[$0] } }
            for (person, model) in zip(persons, people) { person.dogs.append(objectsIn: model.dogs.map { objects[$0] }) }
            realm.add(objects)
            realm.add(persons)
        }
        // Adding follows links, so keys need not follow the model's order: map them.
        let keyOfIndex = objects.map { $0.managed!.key }
        #expect(Set(keyOfIndex).count == dogs.count)
        return (realm, dogs, people, keyOfIndex)
    }

    @Test("1,000 random predicates per realm kind (2,000 in all) over 3,000 dogs and 300 people agree with Swift, as strings and as where queries (a tenth also sorted and distinct)", arguments: RealmKind.allCases)
    func randomPredicates(kind: RealmKind) throws {
        let seed = Self.seed()
        let directory = TemporaryDirectory()
        let (realm, dogs, people, keyOfIndex) = try Self.kennel(seed: seed, kind: kind, directory: directory)

        var generator = Generator(random: SeededRandom(seed: seed &+ 1), dogs: dogs, people: people)
        for number in 0..<1000 {
            let generated = generator.predicate(depth: 3)
            let results = realm.objects(Dog.self).filter(generated.text)
            let expected = dogs.indices.filter(generated.holds).map { keyOfIndex[$0] }.sorted()
            let found: [UInt64] = results.keys
            #expect(found == expected, "seed \(seed), predicate \(number): \(generated.text)")
            if found != expected { return }
            if let query = generated.query {
                let typed: [UInt64] = realm.objects(Dog.self).where(query).keys
                #expect(typed == expected, "seed \(seed), predicate \(number) as a where query: \(generated.text)")
                if typed != expected { return }
            }
            guard number % 10 == 0 else { continue }
            // Every tenth predicate also sorted (stable, by age then name) and made distinct by age.
            let matching = dogs.indices.filter(generated.holds).sorted { keyOfIndex[$0] < keyOfIndex[$1] }
            let sortedIndices = matching.enumerated().sorted { a, b in
                let (x, y) = (dogs[a.element], dogs[b.element])
                if x.age != y.age { return x.age > y.age }
                if x.name != y.name { return x.name < y.name }
                return a.offset < b.offset
            }.map(\.element)
            let sorted: [UInt64] = realm.objects(Dog.self).filter(generated.text + " SORT(age DESC, name ASC)").keys
            #expect(sorted == sortedIndices.map { keyOfIndex[$0] }, "seed \(seed), predicate \(number) sorted: \(generated.text)")
            var seenAges = Set<Int>()
            let distinctIndices = matching.filter { seenAges.insert(dogs[$0].age).inserted }
            let distinct: [UInt64] = realm.objects(Dog.self).filter(generated.text).distinct(by: ["age"]).keys
            #expect(distinct == distinctIndices.map { keyOfIndex[$0] }, "seed \(seed), predicate \(number) distinct: \(generated.text)")
        }
    }
}

extension QueryDifferentialTests {
    @Test("500 random Foundation #Predicate queries per realm kind agree with Swift and with Foundation's own evaluation of the objects", arguments: RealmKind.allCases)
    func randomFoundationPredicates(kind: RealmKind) throws {
        let seed = Self.seed()
        let directory = TemporaryDirectory()
        let (realm, dogs, people, keyOfIndex) = try Self.kennel(seed: seed, kind: kind, directory: directory)
        var random = SeededRandom(seed: seed &+ 2)
        func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        let all = realm.objects(Dog.self)
        let managed = Array(all)
        // `#Predicate` is a macro: its shapes are fixed when the test is compiled, and their
        // constants are drawn at random.
        for number in 0..<500 {
            let (a, b) = (int(-1...16), int(0...15))
            let (low, high) = (min(a, b), max(a, b))
            let name = Self.names[int(0...(Self.names.count - 1))]
            let prefix = String(name.prefix(int(0...name.count)))
            let part = name.isEmpty ? "o" : String(name.dropFirst(int(0...(name.count - 1))).prefix(2))
            let ownerName = people[int(0...(people.count - 1))].name
            let ownerOf = { (dog: DogModel) in dog.owner.map { people[$0].name } }
            let text: String
            let predicate: Predicate<Dog>
            let holds: (DogModel) -> Bool
            switch int(0...8) {
            case 0:
                text = "age > \(a) && name.starts(with: \(prefix))"
                predicate = #Predicate<Dog> { $0.age > a && $0.name.starts(with: prefix) }
                holds = { $0.age > a && $0.name.starts(with: prefix) }
            case 1:
                text = "!(age == \(a)) || name == \(name)"
                predicate = #Predicate<Dog> { !($0.age == a) || $0.name == name }
                holds = { !($0.age == a) || $0.name == name }
            case 2:
                text = "age != \(a) && age <= \(b)"
                predicate = #Predicate<Dog> { $0.age != a && $0.age <= b }
                holds = { $0.age != a && $0.age <= b }
            case 3:
                text = "name.contains(\(part))"
                predicate = #Predicate<Dog> { $0.name.contains(part) }
                holds = { $0.name.contains(part) }
            case 4:
                text = "[\(a), \(b)].contains(age)"
                predicate = #Predicate<Dog> { [a, b].contains($0.age) }
                holds = { [a, b].contains($0.age) }
            case 5:
                text = "(\(low)...\(high)).contains(age)"
                predicate = #Predicate<Dog> { (low...high).contains($0.age) }
                holds = { (low...high).contains($0.age) }
            case 6:
                text = "owner == nil || age < \(a)"
                predicate = #Predicate<Dog> { $0.owner == nil || $0.age < a }
                holds = { $0.owner == nil || $0.age < a }
            case 7:
                text = "owner?.name == \(ownerName)"
                predicate = #Predicate<Dog> { $0.owner?.name == ownerName }
                holds = { ownerOf($0) == ownerName }
            default:
                text = "owner?.name != \(ownerName) && age >= \(b)"
                predicate = #Predicate<Dog> { $0.owner?.name != ownerName && $0.age >= b }
                holds = { ownerOf($0) != ownerName && $0.age >= b }
            }
            let expected = dogs.indices.filter { holds(dogs[$0]) }.map { keyOfIndex[$0] }.sorted()
            let found: [UInt64] = try all.filter(predicate).keys
            #expect(found == expected, "seed \(seed), #Predicate \(number): \(text)")
            // Foundation evaluating the predicate on the objects themselves agrees too.
            let evaluated = try managed.filter { try predicate.evaluate($0) }.map { $0.managed!.key }.sorted()
            #expect(evaluated == expected, "seed \(seed), #Predicate \(number) evaluated by Foundation: \(text)")
            if found != expected || evaluated != expected { return }
        }
    }
}
