import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

enum AllTypesIntEnum: Int, PersistableEnum {
    case value1 = 1, value2 = 3
}

enum AllTypesStringEnum: String, PersistableEnum {
    case value1 = "a", value2 = "c"
}

/// Every kind of property, as RealmSwift's `ModernAllTypesObject`.
final class AllTypesObject: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted var boolCol = false
    @Persisted var intCol = 0
    @Persisted var int8Col: Int8 = 1
    @Persisted var int16Col: Int16 = 2
    @Persisted var int32Col: Int32 = 3
    @Persisted var int64Col: Int64 = 4
    @Persisted var floatCol: Float = 5
    @Persisted var doubleCol: Double = 6
    @Persisted var stringCol = ""
    @Persisted var binaryCol = Data()
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var decimalCol: Decimal = 0
    @Persisted var objectIdCol: ObjectId
    @Persisted var objectCol: AllTypesObject?
    @Persisted var arrayCol: List<AllTypesObject>
    @Persisted var setCol: MutableSet<AllTypesObject>
    @Persisted var anyCol: AnyRealmValue
    @Persisted var uuidCol: UUID
    @Persisted var intEnumCol: AllTypesIntEnum = .value1
    @Persisted var stringEnumCol: AllTypesStringEnum = .value1

    @Persisted var optBoolCol: Bool?
    @Persisted var optIntCol: Int?
    @Persisted var optInt8Col: Int8?
    @Persisted var optFloatCol: Float?
    @Persisted var optStringCol: String?
    @Persisted var optBinaryCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted var optDecimalCol: Decimal?
    @Persisted var optObjectIdCol: ObjectId?
    @Persisted var optUuidCol: UUID?
    @Persisted var optIntEnumCol: AllTypesIntEnum?
    @Persisted var optStringEnumCol: AllTypesStringEnum?

    @Persisted var arrayInt: List<Int>
    @Persisted var arrayInt8: List<Int8>
    @Persisted var arrayFloat: List<Float>
    @Persisted var arrayString: List<String>
    @Persisted var arrayBinary: List<Data>
    @Persisted var arrayDecimal: List<Decimal>
    @Persisted var arrayAny: List<AnyRealmValue>
    @Persisted var arrayOptInt: List<Int?>
    @Persisted var arrayOptString: List<String?>
    @Persisted var arrayOptUuid: List<UUID?>

    @Persisted var setInt: MutableSet<Int>
    @Persisted var setString: MutableSet<String>
    @Persisted var setAny: MutableSet<AnyRealmValue>
    @Persisted var setOptDouble: MutableSet<Double?>
    @Persisted var setOptObjectId: MutableSet<ObjectId?>

    @Persisted var mapInt: Map<String, Int>
    @Persisted var mapDate: Map<String, Date>
    @Persisted var mapAny: Map<String, AnyRealmValue>
    @Persisted var mapOptBool: Map<String, Bool?>
    @Persisted var mapOptDecimal: Map<String, Decimal?>
}

/// RealmSwift's `ModernObjectCreationTests`: an object of every property type made from a
/// dictionary, from an array in property order, from another object, and with every optional
/// given as `NSNull()`; unmanaged, created and added.
@Suite("Creating objects of every property type")
struct AllTypesCreationTests {
    let linked = [1, 2, 3].map { AllTypesObject(value: ["intCol": $0]) }
    let setMembers = [4, 5, 6].map { AllTypesObject(value: ["intCol": $0]) }

    func values() -> [String: Any] {
        [
            "boolCol": true, "intCol": 10, "int8Col": 11 as Int8, "int16Col": 12 as Int16, "int32Col": 13 as Int32,
            "int64Col": 14 as Int64, "floatCol": 15 as Float, "doubleCol": 16 as Double, "stringCol": "a",
            "binaryCol": Data("b".utf8), "dateCol": Date(timeIntervalSince1970: 17), "decimalCol": 18 as Decimal,
            "objectIdCol": ObjectId("6058f12682b2fbb1f334ef1d"), "objectCol": linked[0],
            "arrayCol": [linked[1], linked[2]], "setCol": setMembers,
            "anyCol": AnyRealmValue.int(20), "uuidCol": UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!,
            "intEnumCol": AllTypesIntEnum.value2, "stringEnumCol": AllTypesStringEnum.value2,

            "optBoolCol": false, "optIntCol": 30, "optInt8Col": 31 as Int8, "optFloatCol": 35 as Float, "optStringCol": "c",
            "optBinaryCol": Data("d".utf8), "optDateCol": Date(timeIntervalSince1970: 37), "optDecimalCol": 38 as Decimal,
            "optObjectIdCol": ObjectId("6058f12682b2fbb1f334ef1e"), "optUuidCol": UUID(uuidString: "537DECC8-B300-4954-A233-F89909F4FD89")!,
            "optIntEnumCol": AllTypesIntEnum.value1, "optStringEnumCol": AllTypesStringEnum.value1,

            "arrayInt": [1, 1, 2, 3], "arrayInt8": [1, 2, 3, 1] as [Int8], "arrayFloat": [1, 2, 3, 1] as [Float],
            "arrayString": ["a", "b", "c"], "arrayBinary": [Data("a".utf8)], "arrayDecimal": [1, 2] as [Decimal],
            "arrayAny": [.none, .int(1), .string("a"), .none] as [AnyRealmValue],
            "arrayOptInt": [1, 1, 2, 3, nil] as [Int?], "arrayOptString": ["a", "b", "c", nil] as [String?],
            "arrayOptUuid": [UUID(uuidString: "237DECC8-B300-4954-A233-F89909F4FD89")!, nil] as [UUID?],

            "setInt": [1, 1, 2, 3], "setString": ["a", "b", "c"], "setAny": [.none, .int(1), .string("a"), .none] as [AnyRealmValue],
            "setOptDouble": [1, 2, 3, 1, nil] as [Double?],
            "setOptObjectId": [ObjectId("6058f12682b2fbb1f334ef1f"), nil] as [ObjectId?],

            "mapInt": ["1": 1, "2": 1, "3": 2, "4": 3] as [String: Int],
            "mapDate": ["1": Date(timeIntervalSince1970: 5)] as [String: Date],
            "mapAny": ["1": .none, "2": .int(1), "3": .string("a"), "4": .none] as [String: AnyRealmValue],
            "mapOptBool": ["1": true, "2": false, "3": nil] as [String: Bool?],
            "mapOptDecimal": ["1": 1 as Decimal, "2": nil] as [String: Decimal?],
        ]
    }

    func nullValues() -> [String: Any] {
        values().merging([
            "objectCol": NSNull(), "anyCol": AnyRealmValue.none,
            "optBoolCol": NSNull(), "optIntCol": NSNull(), "optInt8Col": NSNull(), "optFloatCol": NSNull(),
            "optStringCol": NSNull(), "optBinaryCol": NSNull(), "optDateCol": NSNull(), "optDecimalCol": NSNull(),
            "optObjectIdCol": NSNull(), "optUuidCol": NSNull(), "optIntEnumCol": NSNull(), "optStringEnumCol": NSNull(),
            "arrayAny": [AnyRealmValue.none], "arrayOptInt": [NSNull()], "arrayOptString": [NSNull()], "arrayOptUuid": [NSNull()],
            "setAny": [AnyRealmValue.none], "setOptDouble": [NSNull()], "setOptObjectId": [NSNull()],
            "mapAny": ["1": AnyRealmValue.none], "mapOptBool": ["1": NSNull()], "mapOptDecimal": ["1": NSNull()],
        ] as [String: Any]) { _, null in null }
    }

    /// `object` holds `values()`; its linked objects are the same objects when `copies` is
    /// false, objects with the same values otherwise.
    func verify(_ object: AllTypesObject, copies: Bool) {
        let values = values()
        #expect(object.boolCol == true && object.intCol == 10 && object.int8Col == 11 && object.int16Col == 12)
        #expect(object.int32Col == 13 && object.int64Col == 14 && object.floatCol == 15 && object.doubleCol == 16)
        #expect(object.stringCol == "a" && object.binaryCol == Data("b".utf8) && object.dateCol == Date(timeIntervalSince1970: 17))
        #expect(object.decimalCol == 18 && object.objectIdCol == values["objectIdCol"] as? ObjectId)
        #expect(object.anyCol == .int(20) && object.uuidCol == values["uuidCol"] as? UUID)
        #expect(object.intEnumCol == .value2 && object.stringEnumCol == .value2)
        if copies {
            #expect(object.objectCol?.intCol == 1 && object.objectCol?.pk == linked[0].pk)
            #expect(object.arrayCol.map(\.intCol) == [2, 3])
            #expect(Set(object.setCol.map(\.intCol)) == [4, 5, 6])
        } else {
            #expect(object.objectCol === linked[0])
            #expect(object.arrayCol.map { ObjectIdentifier($0) } == linked[1...].map { ObjectIdentifier($0) })
            #expect(Set(object.setCol.map { ObjectIdentifier($0) }) == Set(setMembers.map { ObjectIdentifier($0) }))
        }

        #expect(object.optBoolCol == false && object.optIntCol == 30 && object.optInt8Col == 31 && object.optFloatCol == 35)
        #expect(object.optStringCol == "c" && object.optBinaryCol == Data("d".utf8) && object.optDateCol == Date(timeIntervalSince1970: 37))
        #expect(object.optDecimalCol == 38 && object.optObjectIdCol == values["optObjectIdCol"] as? ObjectId)
        #expect(object.optUuidCol == values["optUuidCol"] as? UUID && object.optIntEnumCol == .value1 && object.optStringEnumCol == .value1)

        #expect(Array(object.arrayInt) == [1, 1, 2, 3] && Array(object.arrayInt8) == [1, 2, 3, 1] && Array(object.arrayFloat) == [1, 2, 3, 1])
        #expect(Array(object.arrayString) == ["a", "b", "c"] && Array(object.arrayBinary) == [Data("a".utf8)])
        #expect(Array(object.arrayDecimal) == [1, 2] && Array(object.arrayAny) == [.none, .int(1), .string("a"), .none])
        #expect(Array(object.arrayOptInt) == [1, 1, 2, 3, nil] && Array(object.arrayOptString) == ["a", "b", "c", nil])
        #expect(Array(object.arrayOptUuid) == values["arrayOptUuid"] as? [UUID?])

        #expect(Set(object.setInt) == [1, 2, 3] && object.setInt.count == 3)
        #expect(Set(object.setString) == ["a", "b", "c"] && Set(object.setAny) == [.none, .int(1), .string("a")] && object.setAny.count == 3)
        #expect(Set(object.setOptDouble) == [1, 2, 3, nil] && object.setOptDouble.count == 4)
        #expect(Set(object.setOptObjectId) == Set(values["setOptObjectId"] as! [ObjectId?]))

        #expect(Dictionary(uniqueKeysWithValues: object.mapInt.asKeyValueSequence().map { ($0.key, $0.value) }) == values["mapInt"] as? [String: Int])
        #expect(object.mapDate["1"] == Date(timeIntervalSince1970: 5) && object.mapDate.count == 1)
        #expect(object.mapAny.count == 4 && object.mapAny["2"] == .int(1) && object.mapAny["1"] == .some(.none))
        #expect(object.mapOptBool.count == 3 && object.mapOptBool["1"] == .some(true) && object.mapOptBool["3"] == .some(nil))
        #expect(object.mapOptDecimal.count == 2 && object.mapOptDecimal["1"] == .some(1) && object.mapOptDecimal["2"] == .some(nil))
    }

    func verifyNil(_ object: AllTypesObject) {
        #expect(object.objectCol == nil && object.anyCol == .none)
        #expect(object.optBoolCol == nil && object.optIntCol == nil && object.optInt8Col == nil && object.optFloatCol == nil)
        #expect(object.optStringCol == nil && object.optBinaryCol == nil && object.optDateCol == nil && object.optDecimalCol == nil)
        #expect(object.optObjectIdCol == nil && object.optUuidCol == nil && object.optIntEnumCol == nil && object.optStringEnumCol == nil)
        #expect(Array(object.arrayAny) == [.none] && Array(object.arrayOptInt) == [nil] && Array(object.arrayOptString) == [nil])
        #expect(Array(object.arrayOptUuid) == [nil])
        #expect(Array(object.setAny) == [.none] && Array(object.setOptDouble) == [nil] && Array(object.setOptObjectId) == [nil])
        #expect(object.mapAny["1"] == .some(.none) && object.mapOptBool["1"] == .some(nil) && object.mapOptDecimal["1"] == .some(nil))
    }

    func verifyDefault(_ object: AllTypesObject) {
        #expect(object.boolCol == false && object.intCol == 0 && object.int8Col == 1 && object.int16Col == 2)
        #expect(object.int32Col == 3 && object.int64Col == 4 && object.floatCol == 5 && object.doubleCol == 6)
        #expect(object.stringCol == "" && object.binaryCol == Data() && object.decimalCol == 0 && object.objectCol == nil)
        #expect(object.arrayCol.isEmpty && object.setCol.isEmpty && object.anyCol == .none)
        #expect(object.intEnumCol == .value1 && object.stringEnumCol == .value1)
        #expect(object.optIntCol == nil && object.optStringCol == nil && object.optIntEnumCol == nil)
        #expect(object.arrayInt.isEmpty && object.arrayAny.isEmpty && object.setOptDouble.isEmpty && object.mapOptBool.isEmpty)
    }

    /// `values()` as an array in the order of the class's properties, with a new primary key.
    func arrayValues() -> [Any?] {
        let values = values()
        var array = AllTypesObject().objectSchema.properties.map { values[$0.name] }
        array[0] = ObjectId.generate()
        return array
    }

    @Test("unmanaged: the defaults, and values from a dictionary, an array, another object and nulls")
    func unmanaged() {
        verifyDefault(AllTypesObject())
        verify(AllTypesObject(value: values()), copies: false)
        verify(AllTypesObject(value: arrayValues()), copies: false)
        verify(AllTypesObject(value: AllTypesObject(value: values())), copies: false)
        verifyNil(AllTypesObject(value: nullValues()))
    }

    @Test("created and added: the defaults, and values from a dictionary, an array, another object and nulls", arguments: RealmKind.allCases)
    func managed(kind: RealmKind) throws {
        // Each in a realm of its own: the linked objects have primary keys, which a second
        // create of the same values would repeat.
        let makers: [(Realm) -> AllTypesObject] = [
            { $0.create(AllTypesObject.self, value: values()) },
            { $0.create(AllTypesObject.self, value: arrayValues()) },
            { $0.create(AllTypesObject.self, value: AllTypesObject(value: values())) },
        ]
        for make in makers {
            let directory = TemporaryDirectory()
            let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [AllTypesObject.self]))
            try realm.write { verify(make(realm), copies: true) }
            // Read back through another handle, from the file.
            let reader = try Realm(configuration: kind.configuration(directory, objectTypes: [AllTypesObject.self]))
            verify(try #require(reader.objects(AllTypesObject.self).filter("intCol == 10").first), copies: true)
            #expect(reader.objects(AllTypesObject.self).count == 7)
        }
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [AllTypesObject.self]))
        try realm.write {
            verifyDefault(realm.create(AllTypesObject.self))
            verifyNil(realm.create(AllTypesObject.self, value: nullValues()))
            let added = AllTypesObject()
            realm.add(added)
            verifyDefault(added)
        }
    }
}
