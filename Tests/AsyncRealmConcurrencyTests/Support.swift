import Foundation
@testable import AsyncRealm
import TestSupport

final class Owner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var pets: List<Pet>
    @Persisted var tags: List<String>
}

final class Pet: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var toy: Toy?
    @Persisted(originProperty: "pets") var owners: LinkingObjects<Owner>
}

final class Toy: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var color: String
}

/// A chain of links, for the depth of link-following.
final class Chain: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
    @Persisted var next: Chain?
}

final class Counter: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

final class Entry: Object {
    @Persisted var writer: Int
    @Persisted var sequence: Int
}

extension TemporaryDirectory {
    /// A realm file in the directory, with the models of these tests.
    var configuration: Realm.Configuration {
        Realm.Configuration(fileURL: url.appendingPathComponent("test.realm"), objectTypes: [Owner.self, Pet.self, Toy.self, Counter.self, Entry.self, Chain.self])
    }
}

/// An actor that opens a realm for itself.
actor RealmActor {
    let configuration: Realm.Configuration
    var realm: Realm!

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
    }

    func open() async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }
}

/// The resident set size of this process, in bytes.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Whether this process runs under ThreadSanitizer (its runtime is linked in).
func isThreadSanitized() -> Bool {
    dlsym(nil, "__tsan_init") != nil  // nil is RTLD_DEFAULT in glibc
}
