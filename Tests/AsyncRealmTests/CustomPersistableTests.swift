import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

struct Email: CustomPersistable, Hashable {
    typealias PersistedType = String
    let address: String
    init(_ address: String) { self.address = address }
    init(persistedValue: String) { address = persistedValue }
    var persistableValue: String { address }
}

/// Refuses negative values: the stored Int must be a count of cents.
struct Cents: FailableCustomPersistable, Hashable, Comparable {
    typealias PersistedType = Int
    let amount: Int
    init?(_ amount: Int) {
        guard amount >= 0 else { return nil }
        self.amount = amount
    }
    init?(persistedValue: Int) { self.init(persistedValue) }
    var persistableValue: Int { amount }
    static func < (left: Cents, right: Cents) -> Bool { left.amount < right.amount }
}

final class Customer: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var email: Email
    @Persisted var backup: Email?
    @Persisted var balance: Cents
    @Persisted var previous: List<Email>
    @Persisted var aliases: MutableSet<Email>
    @Persisted var byLabel: Map<String, Email>
}

@Suite("CustomPersistable")
struct CustomPersistableTests {
    private let types: [Object.Type] = [Customer.self]

    @Test("custom types are stored as their persisted type in properties, optionals, lists, sets and maps", arguments: RealmKind.allCases)
    func roundTrip(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory, objectTypes: types))
        let customer = Customer()
        #expect(customer.email == Email("") && customer.balance == Cents(0), "defaults convert the persisted type's zero")
        customer.email = Email("a@b.c")
        customer.backup = Email("x@y.z")
        customer.balance = Cents(250)!
        customer.previous.append(objectsIn: [Email("old@b.c"), Email("older@b.c")])
        customer.aliases.insert(objectsIn: [Email("al@b.c"), Email("al@b.c")])
        customer.byLabel["work"] = Email("w@b.c")
        try realm!.write { realm!.add(customer) }
        let schema = try #require(realm!.schema["Customer"])
        #expect(schema["email"]?.type == .string && schema["balance"]?.type == .int && schema["backup"]?.isOptional == true)
        func check(_ customer: Customer) {
            #expect(customer.email == Email("a@b.c") && customer.backup == Email("x@y.z") && customer.balance == Cents(250))
            #expect(Array(customer.previous) == [Email("old@b.c"), Email("older@b.c")])
            #expect(Array(customer.aliases) == [Email("al@b.c")] && customer.byLabel["work"] == Email("w@b.c"))
        }
        check(customer)
        if kind == .file {
            realm = nil
            check(try #require(try Realm(configuration: kind.configuration(directory, objectTypes: types)).object(ofType: Customer.self, forPrimaryKey: 0)))
        }
    }

    @Test("queries compare the persisted values, in strings and type-checked")
    func queries() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "custom-queries", objectTypes: types))
        try realm.write {
            for id in 0..<4 {
                realm.create(Customer.self, value: ["id": id, "email": "c\(id)@b.c", "balance": id * 100, "previous": ["p\(id)@b.c"]])
            }
        }
        let customers = realm.objects(Customer.self)
        #expect(customers.filter("email == 'c1@b.c'").map(\.id) == [1])
        #expect(customers.filter("email == %@", Email("c2@b.c")).map(\.id) == [2])
        #expect(customers.where { $0.email == Email("c3@b.c") }.map(\.id) == [3])
        #expect(customers.where { $0.balance >= Cents(200)! }.map(\.id) == [2, 3])
        #expect(customers.where { $0.previous.contains(Email("p0@b.c")) }.map(\.id) == [0])
        #expect(customers.sorted(byKeyPath: "balance", ascending: false).map(\.id) == [3, 2, 1, 0])
        let created = try #require(customers.last)
        #expect(created.email == Email("c3@b.c") && created.balance == Cents(300))
    }

    @Test("a failable type refusing a value given through create fails the write; one refusing a stored value stops")
    func failable() async throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "custom-failable", objectTypes: types))
        #expect(throws: RealmError.self) {
            try realm.write { realm.create(Customer.self, value: ["id": 1, "balance": -5]) }
        }
        #expect(realm.objects(Customer.self).isEmpty)
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "custom-failable-stored", objectTypes: [Customer.self]))
            try realm.write { realm.create(Customer.self, value: ["id": 1]) }
            try realm.write { realm.dynamicObjects("Customer").first!["balance"] = -5 }
            _ = realm.objects(Customer.self).first!.balance
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("the realm holds -5, which Cents.init(persistedValue:) refuses"), "\(printed)")
    }
}
