import AsyncRealm
import Foundation

final class Person: Object {
    @Persisted(primaryKey: true) var id: ObjectId   // a fresh id for each new object
    @Persisted var name: String
    @Persisted var dogs: List<Dog>                   // a to-many relationship
}

final class Dog: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted(indexed: true) var name: String
    @Persisted var age = 1
    @Persisted var owner: Person?                    // a to-one relationship
    @Persisted(originProperty: "dogs") var people: LinkingObjects<Person>
}

/// An actor with a realm of its own: writes suspend instead of blocking a thread.
actor Kennel {
    func admit(_ name: String, age: Int, configuration: Realm.Configuration) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        try await realm.asyncWrite { realm.add(Dog(value: ["name": name, "age": age])) }
    }
}

func quickStart(in directory: URL) async throws -> [String] {
    let configuration = Realm.Configuration(
        fileURL: directory.appendingPathComponent("dogs.realm"), objectTypes: [Person.self, Dog.self])
    let realm = try await Realm.open(configuration: configuration)
    try await realm.asyncWrite {
        let ada = realm.create(Person.self, value: ["name": "Ada"])
        ada.dogs.append(realm.create(Dog.self, value: ["name": "Rex", "age": 3, "owner": ada]))
    }
    let puppies = realm.objects(Dog.self).filter("age < 2").sorted(byKeyPath: "name")
    var seen: [String] = []
    for await change in puppies.changes {          // the current results, then each change
        if case .initial = change {
            try await Kennel().admit("Bo", age: 1, configuration: configuration)
        }
        seen = puppies.map(\.name)
        if !seen.isEmpty { break }
    }
    return seen + realm.objects(Person.self).map { "\($0.name) has \($0.dogs.count) dog" }
}
