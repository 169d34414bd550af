import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

// RealmSwift's models that AsyncRealm did not take: property names past ASCII, and enums of
// every raw type RealmSwift stores.

/// RealmSwift's UTF-8 test model: a property named with letters of five scripts and an emoji.
final class UnicodeNamedObject: Object {
    @Persisted var 柱колоéнǢкƱаم👍: String = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
    @Persisted var count™ = 0
}

extension RealmSwiftCompatibilityTests {
    @Test("a property named with emoji, symbols or other scripts is a key path in a query, as in Realm's query language", arguments: RealmKind.allCases)
    func unicodePropertyNames(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [UnicodeNamedObject.self]))
        let text = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
        try realm.write {
            realm.add(UnicodeNamedObject())
            realm.create(UnicodeNamedObject.self, value: ["柱колоéнǢкƱаم👍": "other", "count™": 2])
        }
        let objects = realm.objects(UnicodeNamedObject.self)
        #expect(objects.filter("柱колоéнǢкƱаم👍 == %@", text).count == 1)
        #expect(objects.filter("%K == %@", "柱колоéнǢкƱаم👍", text).count == 1)
        #expect(objects.filter("count™ > 1 AND 柱колоéнǢкƱаم👍 BEGINSWITH 'o'").count == 1)
        #expect(objects.sorted(byKeyPath: "count™", ascending: false).first?.柱колоéнǢкƱаم👍 == "other")
        // A symbol of ASCII is still no part of a name.
        let error = #expect(throws: RealmError.self) { try RealmPredicate("count™ ~ 3") }
        #expect(error?.message.contains("unexpected character '~'") == true)
    }
}

enum EnumInt8: Int8, PersistableEnum { case one = 1, two = 2 }
enum EnumInt16: Int16, PersistableEnum { case one = 1, big = 300 }
enum EnumInt32: Int32, PersistableEnum { case one = 1, big = 70_000 }
enum EnumInt64: Int64, PersistableEnum { case one = 1, big = 5_000_000_000 }
enum EnumFloat: Float, PersistableEnum { case low = 1.5, high = 2.5 }
enum EnumDouble: Double, PersistableEnum { case low = 1.25, high = 2.75 }

/// RealmSwift's `ModernCollectionsOfEnums`, in short: enums of every raw type it stores, alone
/// and in collections.
final class EnumsOfEveryRawType: Object {
    @Persisted var int8: EnumInt8
    @Persisted var int16: EnumInt16 = .big
    @Persisted var int32: EnumInt32?
    @Persisted var int64: EnumInt64 = .big
    @Persisted var float: EnumFloat = .high
    @Persisted var double: EnumDouble?
    @Persisted var floats: List<EnumFloat>
    @Persisted var doubles: List<EnumDouble?>
    @Persisted var int8s: MutableSet<EnumInt8>
    @Persisted var int64s: Map<String, EnumInt64?>
}

extension RealmSwiftCompatibilityTests {
    @Test("a PersistableEnum may have any integer type, Float or Double as its raw value, as in RealmSwift", arguments: RealmKind.allCases)
    func enumRawTypes(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let configuration = kind.configuration(directory, objectTypes: [EnumsOfEveryRawType.self])
        // Read back through another handle (from the file, when it is one); an in-memory realm
        // lasts while one is open.
        let keeper = try Realm(configuration: configuration)
        defer { withExtendedLifetime(keeper) {} }
        try onAnotherThread {
            let realm = try Realm(configuration: configuration)
            let object = EnumsOfEveryRawType()
            object.int32 = .big
            object.double = .low
            object.floats.append(objectsIn: [.low, .high, .low])
            object.doubles.append(objectsIn: [nil, .high])
            object.int8s.insert(objectsIn: [.two, .two, .one])
            object.int64s["a"] = .big
            object.int64s["b"] = .some(nil)
            try realm.write {
                realm.add(object)
                realm.add(EnumsOfEveryRawType())
                realm.create(EnumsOfEveryRawType.self, value: ["int8": 2, "float": EnumFloat.low, "double": 2.75])
            }
        }
        keeper.refresh()
        let realm = try Realm(configuration: configuration)
        let objects = realm.objects(EnumsOfEveryRawType.self)
        let first = try #require(objects.first)
        #expect(first.int8 == .one && first.int16 == .big && first.int32 == .big && first.int64 == .big)
        #expect(first.float == .high && first.double == .low)
        #expect(Array(first.floats) == [.low, .high, .low] && Array(first.doubles) == [nil, .high])
        #expect(Set(first.int8s) == [.one, .two] && first.int64s["a"] == .big && first.int64s["b"] == .some(nil))
        #expect(objects.where { $0.int8 == .two }.count == 1)
        #expect(objects.where { $0.int64 == .big && $0.int32 == nil }.count == 2)
        #expect(objects.where { $0.float == .low }.count == 1)
        #expect(objects.where { $0.double == .high }.count == 1)
        #expect(objects.where { $0.floats.contains(.high) }.count == 1)
        #expect(objects.where { $0.doubles.contains(nil) }.count == 1)
        #expect(objects.where { $0.int8s.contains(.two) }.count == 1)
        #expect(objects.where { $0.int64s["a"] == .big }.count == 1)
        #expect(objects.filter("float == 2.5 AND int16 == 300").count == 2)
        #expect(objects.filter("int64 == 5000000000 AND double == 1.25").count == 1)
        #expect(objects.sorted(byKeyPath: "float").map(\.float) == [.low, .high, .high])
    }
}
