import AsyncRealm
import Foundation
import Testing
import TestSupport

// The examples of Docs/Writes.md.

func rename(_ realm: Realm, from old: String, to new: String) async throws {
    try await realm.asyncWrite {
        for dog in realm.objects(Dog.self).where({ $0.name == old }) {
            dog.name = new
        }
    }
}

@Suite("Docs/Writes.md")
struct WritesGuide {
    static func realm(_ name: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "writes-guide-\(name)", objectTypes: [Person.self, Dog.self, Contact.self, Address.self]))
    }

    @Test("write, its value, and a failed write that stores nothing")
    func write() throws {
        let realm = try Self.realm("write")
        try realm.write {
            let rex = Dog(value: ["name": "Rex", "age": 3])
            realm.add(rex)
            rex.age += 1                         // a managed object changes only inside a write
        }
        let count = try realm.write { () -> Int in
            realm.create(Dog.self, value: ["name": "Bo"])
            return realm.objects(Dog.self).count
        }
        #expect(count == 2)
        #expect(realm.objects(Dog.self).first?.age == 4)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try realm.write {
                realm.create(Dog.self, value: ["name": "Never"])
                throw Stop()
            }
        }
        #expect(realm.objects(Dog.self).count == 2)
    }

    @Test("update policies")
    func updatePolicies() throws {
        let realm = try Self.realm("update")
        let id = ObjectId.generate()
        try realm.write {
            realm.create(Contact.self, value: ["id": id, "name": "Ana", "age": 30], update: .modified)
            realm.create(Contact.self, value: ["id": id, "age": 31], update: .modified)   // keeps name "Ana"
        }
        let ana = try #require(realm.object(ofType: Contact.self, forPrimaryKey: id))
        #expect(ana.name == "Ana" && ana.age == 31)
        #expect { try realm.write { realm.create(Contact.self, value: ["id": id]) } } throws: {
            ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
        }
    }

    @Test("deleting, and the explicit transaction")
    func deleting() throws {
        let realm = try Self.realm("delete")
        try realm.write {
            realm.create(Dog.self, value: ["name": "Old", "age": 12])
            realm.create(Dog.self, value: ["name": "Bo"])
            realm.create(Dog.self, value: ["name": "Rex"])
        }
        try realm.write {
            realm.delete(realm.objects(Dog.self).filter("age > 10"))   // a query's objects
            if let bo = realm.objects(Dog.self).first(where: { $0.name == "Bo" }) {
                realm.delete(bo)                                         // one object
            }
        }
        #expect(realm.objects(Dog.self).map(\.name) == ["Rex"])

        realm.beginWrite()
        realm.create(Dog.self, value: ["name": "Pip"])
        if realm.objects(Dog.self).count > 100 {
            realm.cancelWrite()                  // nothing stored
        } else {
            try realm.commitWrite()              // stored, or throws and stores nothing
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).count == 2)
    }

    @Test("asyncWrite, writing without notifying, copies")
    func asyncWriteAndCopies() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self]))
        try await realm.asyncWrite { realm.create(Dog.self, value: ["name": "Rex"]) }
        try await rename(realm, from: "Rex", to: "Max")
        #expect(realm.objects(Dog.self).map(\.name) == ["Max"])

        let dogs = realm.objects(Dog.self)
        let stream = dogs.changes
        try realm.write(withoutNotifying: [stream.token]) {
            realm.create(Dog.self, value: ["name": "Quiet"])
        }
        var iterator = stream.makeAsyncIterator()
        guard case .initial(let initial)? = await iterator.next() else { Issue.record("no initial element"); return }
        #expect(initial.count == 2)

        let copy = directory.file("copy.realm")
        try realm.writeCopy(toFile: copy)
        #expect(try Realm(configuration: Realm.Configuration(fileURL: copy, objectTypes: [Person.self, Dog.self])).objects(Dog.self).count == 2)

        let seedURL = copy
        let appFileURL = directory.file("app.realm")
        do {
            let seeded = Realm.Configuration(fileURL: appFileURL, objectTypes: [Dog.self], seedFilePath: seedURL)
            let realm = try Realm(configuration: seeded)
            #expect(realm.objects(Dog.self).count == 2)
        }
    }
}
