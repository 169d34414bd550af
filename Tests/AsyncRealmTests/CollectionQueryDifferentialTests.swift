import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Random predicates over sets, evaluated by the query engine and by plain Swift over the same
/// objects, before and after random changes to the sets.
@Suite("Queries on sets against a plain Swift evaluator")
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
