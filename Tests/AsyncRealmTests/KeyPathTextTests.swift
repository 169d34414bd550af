import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Empty and malformed key paths are refused with the library's message, never a crash without
/// one or a silent guess (issue 26, item 2).
@Suite("Key paths given as text")
struct KeyPathTextTests {
    static let malformed = ["", ".", "id.", ".id", "parent..id", ".."]

    @Test("a key path is names joined by single dots")
    func components() {
        #expect(KeyPathText.components("id") == ["id"])
        #expect(KeyPathText.components("owner.name") == ["owner", "name"])
        for text in Self.malformed { #expect(KeyPathText.components(text) == nil, "\(text)") }
    }

    @Test("%K with a malformed key path throws invalidQuery", arguments: malformed)
    func formatArgument(text: String) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        try realm.write { realm.add(ObjectTests.makePerson(1, "Ana")) }
        let error = #expect(throws: RealmError.self) { _ = try realm.objects(Person.self).filter(RealmPredicate("%K == 1", text)) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("key path") == true, "\(error?.message ?? "")")
    }

    @Test("sorted, distinct, the aggregates and changes(keyPaths:) stop with a message naming the key path")
    func nonThrowingForms() async throws {
        let sorted = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "keypath-sort"))
            _ = realm.objects(Person.self).sorted(byKeyPath: "id.")
        }
        #expect(String(decoding: sorted.standardErrorContent, as: UTF8.self).contains("'id.' is not a key path"))
        let distinct = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "keypath-distinct"))
            _ = realm.objects(Person.self).distinct(by: ["parent..id"])
        }
        #expect(String(decoding: distinct.standardErrorContent, as: UTF8.self).contains("'parent..id' is not a key path"))
        let minimum = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "keypath-min"))
            let _: Int? = realm.objects(Person.self).min(ofProperty: ".id")
        }
        #expect(String(decoding: minimum.standardErrorContent, as: UTF8.self).contains("'.id' is not a key path"))
        let sum = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "keypath-sum"))
            let _: Int = realm.objects(Person.self).sum(ofProperty: "")
        }
        #expect(String(decoding: sum.standardErrorContent, as: UTF8.self).contains("the key path is empty"))
        let observed = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "keypath-changes"))
            _ = realm.objects(Person.self).changes(keyPaths: ["."])
        }
        #expect(String(decoding: observed.standardErrorContent, as: UTF8.self).contains("'.' is not a key path"))
    }
}
