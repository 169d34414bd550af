import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Random predicates over sets, maps and mixed values, evaluated by the query engine and by
/// plain Swift over the same objects, before and after random changes to them.
@Suite("Queries on sets, maps and mixed values against a plain Swift evaluator")
struct CollectionQueryDifferentialTests {
    struct TaggedModel {
        var tags: Set<String>
        var scores: Set<Int?>
        var friendAges: [Int]
    }

    struct Generated {
        let text: String
        let holds: (TaggedModel) -> Bool
    }

    static let vocabulary = ["red", "Red", "green", "grey", "blue", "b", ""]

    struct Generator {
        var random: SeededGenerator

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        static func compare(_ value: Int, _ op: String, _ other: Int) -> Bool {
            switch op {
            case "==": value == other
            case "!=": value != other
            case "<": value < other
            case "<=": value <= other
            case ">": value > other
            default: value >= other
            }
        }

        mutating func atom() -> Generated {
            switch int(0...8) {
            case 0:
                let tag = pick(vocabulary)
                return Generated(text: "ANY tags == '\(tag)'") { $0.tags.contains(tag) }
            case 1:
                let tag = pick(vocabulary)
                return Generated(text: "NONE tags == '\(tag)'") { !$0.tags.contains(tag) }
            case 2:
                let tag = pick(vocabulary)
                return Generated(text: "'\(tag)' IN tags") { $0.tags.contains(tag) }
            case 3:
                let prefix = pick(["r", "g", "b", "R"]), folded = int(0...1) == 1
                return Generated(text: "ANY tags BEGINSWITH\(folded ? "[c]" : "") '\(prefix)'") { model in
                    model.tags.contains { folded ? $0.lowercased().hasPrefix(prefix.lowercased()) : $0.hasPrefix(prefix) }
                }
            case 4:
                let op = pick(["==", "!=", "<", "<=", ">", ">="]), n = int(0...4)
                return Generated(text: "tags.@count \(op) \(n)") { Self.compare($0.tags.count, op, n) }
            case 5:
                let op = pick(["==", "<", ">"]), n = int(-1...9)
                return Generated(text: "ANY scores \(op) \(n)") { model in model.scores.contains { $0.map { Self.compare($0, op, n) } ?? false } }
            case 6:
                return Generated(text: "ANY scores == nil") { $0.scores.contains(nil) }
            case 7:
                let n = int(0...20)
                return Generated(text: "scores.@sum > \(n)") { model in model.scores.compactMap { $0 }.reduce(0, +) > n }
            default:
                let n = int(0...60)
                return Generated(text: "ANY friends.age > \(n)") { $0.friendAges.contains { $0 > n } }
            }
        }

        mutating func predicate(depth: Int) -> Generated {
            guard depth > 0, int(0...2) > 0 else { return atom() }
            switch int(0...2) {
            case 0:
                let left = predicate(depth: depth - 1), right = predicate(depth: depth - 1)
                return Generated(text: "(\(left.text)) AND (\(right.text))") { left.holds($0) && right.holds($0) }
            case 1:
                let left = predicate(depth: depth - 1), right = predicate(depth: depth - 1)
                return Generated(text: "(\(left.text)) OR (\(right.text))") { left.holds($0) || right.holds($0) }
            default:
                let inner = predicate(depth: depth - 1)
                return Generated(text: "NOT (\(inner.text))") { !inner.holds($0) }
            }
        }
    }

    struct PlayerModel {
        var scores: [String: Int]
        var petAges: [String: Int?]
    }

    static let mapKeys = ["l1", "l2", "bonus", "x", "L1"]

    struct MapGenerator {
        var random: SeededGenerator

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        mutating func atom() -> (text: String, holds: (PlayerModel) -> Bool) {
            let op = pick(["==", "!=", "<", ">", ">="]), n = int(-3...6), key = pick(mapKeys)
            switch int(0...8) {
            case 0:
                return ("scores['\(key)'] \(op) \(n)", { model in model.scores[key].map { Generator.compare($0, op, n) } ?? (op == "!=") })
            case 1:
                return ("scores['\(key)'] == nil", { $0.scores[key] == nil })
            case 2:
                return ("ANY scores.@allKeys == '\(key)'", { $0.scores[key] != nil })
            case 3:
                let prefix = pick(["l", "L", "b"])
                return ("ANY scores.@allKeys BEGINSWITH[c] '\(prefix)'", { $0.scores.keys.contains { $0.lowercased().hasPrefix(prefix.lowercased()) } })
            case 4:
                return ("ANY scores.@allValues \(op) \(n)", { $0.scores.values.contains { Generator.compare($0, op, n) } })
            case 5:
                return ("ANY scores \(op) \(n)", { $0.scores.values.contains { Generator.compare($0, op, n) } })
            case 6:
                let count = int(0...3)
                return ("scores.@count \(op) \(count)", { Generator.compare($0.scores.count, op, count) })
            case 7:
                return ("NONE scores.@allKeys == '\(key)'", { $0.scores[key] == nil })
            default:
                return ("pets['\(key)'].age > \(n)", { model in (model.petAges[key] ?? nil).map { $0 > n } ?? false })
            }
        }

        mutating func predicate(depth: Int) -> (text: String, holds: (PlayerModel) -> Bool) {
            guard depth > 0, int(0...2) > 0 else { return atom() }
            let left = predicate(depth: depth - 1), right = predicate(depth: depth - 1)
            switch int(0...2) {
            case 0: return ("(\(left.text)) AND (\(right.text))", { left.holds($0) && right.holds($0) })
            case 1: return ("(\(left.text)) OR (\(right.text))", { left.holds($0) || right.holds($0) })
            default: return ("NOT (\(left.text))", { !left.holds($0) })
            }
        }
    }

    @Test("300 random predicates over 300 objects' maps, before and after random changes", arguments: RealmKind.allCases)
    func randomMapPredicates(kind: RealmKind) throws {
        let seed = testSeed()
        var generator = MapGenerator(random: SeededGenerator(seed: seed))
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Player.self, Critter.self]))
        var models: [PlayerModel] = []
        try realm.write {
            for id in 0..<300 {
                var scores: [String: Int] = [:], pets: [String: Int?] = [:]
                for _ in 0..<generator.int(0...3) { scores[generator.pick(Self.mapKeys)] = generator.int(-3...6) }
                for _ in 0..<generator.int(0...2) { pets[generator.pick(Self.mapKeys)] = generator.int(0...3) == 0 ? .some(nil) : generator.int(-3...6) }
                models.append(PlayerModel(scores: scores, petAges: pets))
                let petValues: [String: Any] = pets.mapValues { age -> Any in age.map { ["name": "pet", "age": $0] as [String: Any] } ?? NSNull() }
                realm.create(Player.self, value: ["id": id, "scores": scores, "pets": petValues])
            }
        }
        func check(_ round: String) {
            for _ in 0..<150 {
                let generated = generator.predicate(depth: 2)
                let expected = models.indices.filter { generated.holds(models[$0]) }
                let found = realm.objects(Player.self).filter(generated.text).map(\.id)
                #expect(found == expected, "seed \(seed), \(round): \(generated.text)")
            }
        }
        check("as created")
        try realm.write {
            for id in 0..<300 where generator.int(0...2) == 0 {
                let player = realm.object(ofType: Player.self, forPrimaryKey: id)!
                let key = generator.pick(Self.mapKeys), value = generator.int(-3...6)
                if generator.int(0...1) == 0 {
                    player.scores[key] = nil
                    models[id].scores[key] = nil
                } else {
                    player.scores[key] = value
                    models[id].scores[key] = value
                }
            }
        }
        check("after changes")
    }

    /// A mixed value as the Swift model sees it: a number (any kind compares by value), a
    /// string, a Boolean, or nothing.
    enum MixedModel {
        case none, number(Double), string(String), bool(Bool)

        var kindRank: Int {
            switch self {
            case .none: 0
            case .bool: 1
            case .number: 2
            case .string: 3
            }
        }
    }

    @Test("200 random predicates and sorts over 300 mixed values of every kind", arguments: RealmKind.allCases)
    func randomMixedPredicates(kind: RealmKind) throws {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Setting.self, Profile.self]))
        var models: [MixedModel] = []
        try realm.write {
            for id in 0..<300 {
                let (value, model): (AnyRealmValue, MixedModel) = switch Int.random(in: 0..<7, using: &random) {
                case 0: (.none, .none)
                case 1: { let n = Int.random(in: -3...3, using: &random); return (.int(n), .number(Double(n))) }()
                case 2: { let n = Double(Int.random(in: -6...6, using: &random)) / 2; return (.double(n), .number(n)) }()
                case 3: { let n = Int.random(in: -3...3, using: &random); return (.decimal128(Decimal(n)), .number(Double(n))) }()
                case 4: { let n = Float(Int.random(in: -6...6, using: &random)) / 2; return (.float(n), .number(Double(n))) }()
                case 5: { let text = ["a", "ab", "b", "1", ""].randomElement(using: &random)!; return (.string(text), .string(text)) }()
                default: { let flag = Bool.random(using: &random); return (.bool(flag), .bool(flag)) }()
                }
                models.append(model)
                realm.create(Setting.self, value: ["id": id, "value": value])
            }
        }
        for _ in 0..<200 {
            let op = ["==", "!=", "<", ">="].randomElement(using: &random)!
            let (text, holds): (String, (MixedModel) -> Bool) = switch Int.random(in: 0..<4, using: &random) {
            case 0:
                { let n = Double(Int.random(in: -6...6, using: &random)) / 2
                  return ("value \(op) \(n)", { model in
                      guard case .number(let value) = model else { return op == "!=" }
                      return Generator.compare(value == n ? 0 : value < n ? -1 : 1, op, 0)
                  }) }()
            case 1:
                { let text = ["a", "ab", "b", "1"].randomElement(using: &random)!
                  return ("value \(op) '\(text)'", { model in
                      guard case .string(let value) = model else { return op == "!=" }
                      return Generator.compare(value == text ? 0 : value < text ? -1 : 1, op, 0)
                  }) }()
            case 2:
                ("value == nil", { if case .none = $0 { true } else { false } })
            default:
                ("value == true", { if case .bool(true) = $0 { true } else { false } })
            }
            let expected = models.indices.filter { holds(models[$0]) }
            #expect(realm.objects(Setting.self).filter(text).map(\.id) == expected, "seed \(seed): \(text)")
        }
        let sorted = realm.objects(Setting.self).sorted(byKeyPath: "value").map(\.id)
        let ranks = sorted.map { models[$0].kindRank }
        #expect(ranks == ranks.sorted(), "seed \(seed): a sort orders by kind first")
        for (left, right) in zip(sorted, sorted.dropFirst()) {
            if case .number(let a) = models[left], case .number(let b) = models[right] { #expect(a <= b, "seed \(seed)") }
            if case .string(let a) = models[left], case .string(let b) = models[right] { #expect(a <= b, "seed \(seed)") }
        }
    }

    @Test("300 random predicates over 400 objects' sets, before and after random removals", arguments: RealmKind.allCases)
    func randomPredicates(kind: RealmKind) throws {
        let seed = testSeed()
        var generator = Generator(random: SeededGenerator(seed: seed))
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Tagged.self, Pal.self]))
        var models: [TaggedModel] = []
        try realm.write {
            for id in 0..<400 {
                let tags = Set((0..<generator.int(0...4)).map { _ in generator.pick(Self.vocabulary) })
                let scores = Set((0..<generator.int(0...3)).map { _ -> Int? in generator.int(0...5) == 0 ? nil : generator.int(0...8) })
                let ages = (0..<generator.int(0...2)).map { _ in generator.int(0...60) }
                models.append(TaggedModel(tags: tags, scores: scores, friendAges: ages))
                realm.create(Tagged.self, value: [
                    "id": id, "tags": Array(tags), "scores": Array(scores),
                    "friends": ages.map { ["name": "pal", "age": $0] },
                ])
            }
        }
        func check(_ round: String) {
            for _ in 0..<150 {
                let generated = generator.predicate(depth: 2)
                let expected = models.indices.filter { generated.holds(models[$0]) }
                let found = realm.objects(Tagged.self).filter(generated.text).map(\.id)
                #expect(found == expected, "seed \(seed), \(round): \(generated.text)")
            }
        }
        check("as created")
        try realm.write {
            for id in 0..<400 where generator.int(0...2) == 0 {
                let tagged = realm.object(ofType: Tagged.self, forPrimaryKey: id)!
                let tag = generator.pick(Self.vocabulary)
                tagged.tags.remove(tag)
                models[id].tags.remove(tag)
                let added = generator.pick(Self.vocabulary)
                tagged.tags.insert(added)
                models[id].tags.insert(added)
            }
        }
        check("after changes")
    }
}
