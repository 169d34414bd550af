import Foundation
import Synchronization
import Testing
@testable import AsyncRealm
import TestSupport

/// Predicates as long and as deep as a user can make them: long chains of one operator are
/// answered, deeper nesting than `QueryLimits.maximumNesting` is a thrown `invalidQuery`, and
/// none of them overflows the stack (issue 26, item 1).
@Suite("Query limits: long chains and deep nesting")
struct QueryLimitsTests {
    static func people(_ count: Int) throws -> (Realm, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        try realm.write {
            for id in 0..<count { realm.add(ObjectTests.makePerson(id, "p\(id)")) }
        }
        return (realm, directory)
    }

    static func invalidQuery(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as RealmError {
            return error.code == .invalidQuery
        } catch {
            return false
        }
    }

    @Test("a 20,000-term OR chain and a 20,000-term AND chain are answered")
    func longChains() throws {
        let (realm, directory) = try Self.people(50)
        _ = directory
        let people = realm.objects(Person.self)
        let or = (0..<20_000).map { "id == \($0)" }.joined(separator: " OR ")
        #expect(people.filter(or).count == 50)
        #expect(try people.filter(RealmPredicate(or)).count == 50)
        let and = (0..<20_000).map { _ in "id >= 10" }.joined(separator: " AND ")
        #expect(people.filter(and).count == 40)
        // Parenthesised pairwise, as a generator of strings writes them: one chain all the same.
        let nested = (1..<150).reduce("id == 0") { "(\($0) OR id == \($1))" }
        #expect(throws: Never.self) { _ = try people.filter(RealmPredicate(nested)).count }
    }

    @Test("40,000 '(' or 20,000 NOTs are refused with invalidQuery, not a crash")
    func deepNesting() throws {
        let (realm, directory) = try Self.people(3)
        _ = directory
        let people = realm.objects(Person.self)
        let parentheses = String(repeating: "(", count: 40_000) + "id == 1" + String(repeating: ")", count: 40_000)
        let alternating = (0..<20_000).reduce("id == 0") { $1 % 2 == 0 ? "(\($0) OR id == \($1))" : "(\($0) AND id == \($1))" }
        for text in [parentheses, String(repeating: "NOT ", count: 20_000) + "id == 1", alternating, String(repeating: "(", count: 40_000)] {
            #expect(Self.invalidQuery { _ = try people.filter(RealmPredicate(text)) })
        }
        // Within the limit, nesting is answered: 100 NOTs are none.
        #expect(try people.filter(RealmPredicate(String(repeating: "NOT ", count: 100) + "id == 1")).count == 1)
        let deepest = String(repeating: "(", count: QueryLimits.maximumNesting) + "id == 1" + String(repeating: ")", count: QueryLimits.maximumNesting)
        #expect(try people.filter(RealmPredicate(deepest)).count == 1)
    }

    @Test("the deepest predicate allowed parses, binds and evaluates on a thread with a 512 KiB stack")
    func smallStack() throws {
        let directory = TemporaryDirectory()
        let configuration = RealmKind.file.configuration(directory)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 0..<3 { realm.add(ObjectTests.makePerson(id, "p\(id)")) } }
        }
        let nots = String(repeating: "NOT ", count: QueryLimits.maximumNesting - 1) + "(id == 1 OR id == 2)"
        let result = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let realm = try! Realm(configuration: configuration)
            result.withLock { $0 = try? realm.objects(Person.self).filter(RealmPredicate(nots)).count }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(result.withLock { $0 } == 1)
    }

    @Test("where {} chains built in a loop are answered; nesting built in code past the limit is refused")
    func builtInCode() throws {
        let (realm, directory) = try Self.people(50)
        _ = directory
        let people = realm.objects(Person.self)
        let chained = people.where { person in
            (1..<20_000).reduce(person.id == 0) { $0 || person.id == $1 }
        }
        #expect(chained.count == 50)
        let root = Query<Person>(realm: realm, path: [])
        let deep = (0..<(QueryLimits.maximumNesting + 10)).reduce(root.id == 1) { query, _ in !query }
        #expect(Self.invalidQuery { _ = try QueryBinder(schemas: realm.objectSchemas).bind(deep.booleanNode, to: realm.objectSchemas["Person"]!) })
    }

    @Test("a result filtered 5,000 times nests no deeper")
    func filteredAgain() throws {
        let (realm, directory) = try Self.people(20)
        _ = directory
        var results = realm.objects(Person.self)
        for _ in 0..<5_000 { results = results.filter("id >= 5") }
        #expect(results.count == 15)
    }
}
