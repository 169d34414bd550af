import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// `invalidate()` does what the reference says (issue 26, item 11): objects and lists read
/// before it are invalidated, results made before it are empty, and the realm reads anew.
@Suite("Realm.invalidate()")
struct InvalidateTests {
    @Test("objects and lists read before invalidate() are invalidated; results made before it are empty", arguments: RealmKind.allCases)
    func invalidatesWhatWasRead(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write { realm.add(ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex")])) }
        let person = try #require(realm.objects(Person.self).first)
        let dogs = person.dogs
        let results = realm.objects(Dog.self)
        let filtered = results.filter("age >= 1")
        #expect(!person.isInvalidated && !dogs.isInvalidated && !results.isInvalidated)
        #expect(filtered.count == 1)
        realm.invalidate()
        #expect(person.isInvalidated)
        #expect(dogs.isInvalidated)
        #expect(results.isInvalidated)
        #expect(results.isEmpty && results.count == 0 && Array(results).isEmpty)
        #expect(filtered.isEmpty && filtered.filter("age > 0").isEmpty)
        // What is read afresh is valid, from the newest version.
        let again = try #require(realm.objects(Person.self).first)
        #expect(!again.isInvalidated)
        #expect(again.name == "Ana" && again.dogs.count == 1)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("reading an object read before invalidate() stops with a message")
    func readingStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "invalidate-read"))
            try realm.write { realm.add(Dog()) }
            let dog = realm.objects(Dog.self).first!
            realm.invalidate()
            _ = dog.name
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("read before its realm was invalidated; check isInvalidated"), "\(printed)")
    }
}
