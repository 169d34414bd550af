import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// Long values first, the properties queried after them.
final class LongValueRecord: Object {
    @Persisted var text = ""
    @Persisted var blob = Data()
    @Persisted var count = 0
    @Persisted var weight = 0.0
    @Persisted var label = ""
}

@Suite("Queries over rows holding long values")
struct LongValueQueryTests {
    @Test("filters, counts, aggregates and sorts find the properties after a string or binary of 16 KiB or more", arguments: RealmKind.allCases)
    func propertiesAfterLongValues(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [LongValueRecord.self]))
        // Lengths whose varint takes one, two and three bytes; the longer rows live on overflow pages.
        let lengths = [10, 200, 5_000, 16_384, 70_000]
        try realm.write {
            for (index, length) in lengths.enumerated() {
                realm.add(LongValueRecord(value: [
                    "text": String(repeating: "x", count: length), "blob": Data(repeating: 1, count: length),
                    "count": 5, "weight": 1.5, "label": "label \(index)",
                ]))
            }
        }
        let records = realm.objects(LongValueRecord.self)
        #expect(records.filter("count == 5").count == 5)
        #expect(records.filter("weight > 1").count == 5)
        #expect(records.filter("label BEGINSWITH 'label'").count == 5)
        #expect(records.where { $0.count == 5 && $0.label != "" }.count == 5)
        #expect(records.sum(ofProperty: "count") as Int == 25)
        #expect(records.sum(ofProperty: "weight") as Double == 7.5)
        #expect(records.max(ofProperty: "label") as String? == "label 4")
        #expect(records.sorted(byKeyPath: "label", ascending: false).map(\.label) == (0..<5).reversed().map { "label \($0)" })
        #expect(records.map(\.text.count) == lengths)
    }
}
