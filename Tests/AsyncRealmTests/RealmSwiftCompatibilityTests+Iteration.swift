import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// A node of a tree, for loops that change the collection they iterate.
final class IteratedNode: Object {
    @Persisted var id = 0
    @Persisted var children: List<IteratedNode>
    @Persisted var bag: MutableSet<IteratedNode>
    @Persisted var numbers: List<Int>
    @Persisted var numberSet: MutableSet<Int>
    @Persisted var parent: IteratedNode?
    @Persisted(originProperty: "parent") var offspring: LinkingObjects<IteratedNode>
}

extension RealmSwiftCompatibilityTests {
    /// A root with ten children, each in its list, its set and its linking objects, and the
    /// numbers 0 to 9 in a list and a set.
    private static func tree(in realm: Realm) throws -> IteratedNode {
        try realm.write {
            realm.deleteAll()
            let root = realm.create(IteratedNode.self, value: ["id": -1, "numbers": Array(0..<10), "numberSet": Array(0..<10)])
            for id in 0..<10 {
                let child = realm.create(IteratedNode.self, value: ["id": id, "parent": root])
                root.children.append(child)
                root.bag.insert(child)
            }
            return root
        }
    }

    @Test("a loop over a managed list, set or linking objects goes through the elements it started with, as RealmSwift's enumeration does", arguments: RealmKind.allCases)
    func iterationOverChangingCollections(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [IteratedNode.self]))
        func deletesEach<C: Sequence>(_ collection: (IteratedNode) -> C) throws -> Int where C.Element == IteratedNode {
            let root = try Self.tree(in: realm)
            var seen = 0
            try realm.write { for node in collection(root) { seen += 1; realm.delete(node) } }
            #expect(realm.objects(IteratedNode.self).count == 1)
            return seen
        }
        #expect(try deletesEach { $0.children } == 10)
        #expect(try deletesEach { $0.bag } == 10)
        #expect(try deletesEach { $0.offspring } == 10)

        var root = try Self.tree(in: realm)
        var seen: [Int] = []
        try realm.write { for number in root.numbers { seen.append(number); root.numbers.remove(at: root.numbers.firstIndex(of: number)!) } }
        #expect(seen == Array(0..<10) && root.numbers.isEmpty)
        seen = []
        try realm.write { for number in root.numberSet { seen.append(number); root.numberSet.remove(number) } }
        #expect(seen.sorted() == Array(0..<10) && root.numberSet.isEmpty)

        // Appending inside the loop ends it (before, it went on for ever).
        root = try Self.tree(in: realm)
        var steps = 0
        try realm.write { for child in root.children { steps += 1; root.children.append(child); if steps > 100 { break } } }
        #expect(steps == 10 && root.children.count == 20)

        // An object deleted after the loop began comes as an invalidated one, as in RealmSwift.
        root = try Self.tree(in: realm)
        var invalidated: [Int] = []
        try realm.write {
            for (position, child) in root.children.enumerated() {
                if child.isInvalidated { invalidated.append(position) } else if child.id == 0 { realm.delete(root.children[5]) }
            }
        }
        #expect(invalidated == [5])
    }
}
