import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// A model declared with RealmSwift's decimal type name.
final class PricedItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var price: Decimal128
    @Persisted var discount: Decimal128?
    @Persisted var history: List<Decimal128>
}

extension RealmSwiftCompatibilityTests {
    @Test("Decimal128 is RealmSwift's name for the decimal type: declared, made with number: and value:, stored exactly, queried", arguments: RealmKind.allCases)
    func decimal128(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [PricedItem.self]))
        // (Not the literal 19.99: Foundation makes a decimal literal through a Double.)
        let price = Decimal128(value: "19.99")
        try realm.write {
            let item = PricedItem()
            item.id = 1
            item.price = price
            item.discount = Decimal128(number: NSNumber(value: Int64.max))
            item.history.append(objectsIn: [Decimal128(value: "0.1"), Decimal128(value: 3), Decimal128(number: 2.5)])
            realm.add(item)
        }
        let item = try #require(realm.object(ofType: PricedItem.self, forPrimaryKey: 1))
        #expect(item.price == Decimal(string: "19.99"))
        #expect(item.discount == Decimal(Int64.max), "an integer past 2^53 is exact")
        #expect(Array(item.history) == [Decimal(string: "0.1")!, 3, 2.5])
        #expect(realm.objects(PricedItem.self).filter("price > %@", Decimal128(value: 19.98)).count == 1)
        #expect(item.history.sum() == Decimal(string: "5.6"))
    }
}
