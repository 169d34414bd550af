import Foundation
import StorageEngine

/// A property that holds a value of any stored type, or a link to an object of any class, as
/// RealmSwift's `AnyRealmValue`:
///
///     class Setting: Object {
///         @Persisted var value: AnyRealmValue
///     }
///     setting.value = .int(3)
///     setting.value = .string("dark")
///     setting.value = .object(profile)
///
/// `.none` is the absence of a value (there is no `AnyRealmValue?`). Two values are equal when
/// they have the same case and value (`.int(1)` is not `.double(1)`); in queries, numbers
/// compare across cases by value (`value == 1` matches `.int(1)`, `.double(1.0)` and
/// `.decimal128(1)`), values of other different cases are never equal and do not order, and a
/// sort orders by kind first: none, booleans, numbers, strings, data, dates, object ids,
/// UUIDs, objects. A link to an object that is deleted reads as `.none`.
///
/// A value can also be a list or a dictionary of mixed values, nested to any depth
/// (`.fromArray([.int(1), .fromDictionary(["a": .bool(true)])])`). The value of a managed
/// object holds them live: `object.value.listValue?.append(.int(2))` in a write transaction
/// changes the stored list. Two unmanaged lists (or dictionaries) are equal when their
/// elements (or entries) are; two managed ones when they are the same stored collection.
public enum AnyRealmValue: Hashable {
    /// No value.
    case none
    /// An integer.
    case int(Int)
    /// A Boolean.
    case bool(Bool)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date, to the nanosecond.
    case date(Date)
    /// A link to an object of any class.
    case object(Object)
    /// An `ObjectId`.
    case objectId(ObjectId)
    /// A decimal, stored exactly (Realm's Decimal128).
    case decimal128(Decimal)
    /// A `UUID`.
    case uuid(UUID)
    /// A dictionary of mixed values by string key.
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of mixed values.
    case list(List<AnyRealmValue>)

    /// `.none`, as RealmSwift's `AnyRealmValue()`.
    public init() {
        self = .none
    }

    /// The integer held, or nil.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }
    /// The Boolean held, or nil.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The `Float` held, or nil.
    public var floatValue: Float? { if case .float(let value) = self { value } else { nil } }
    /// The `Double` held, or nil.
    public var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
    /// The string held, or nil.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The data held, or nil.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The date held, or nil.
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    /// The `ObjectId` held, or nil.
    public var objectIdValue: ObjectId? { if case .objectId(let value) = self { value } else { nil } }
    /// The decimal held, or nil.
    public var decimal128Value: Decimal? { if case .decimal128(let value) = self { value } else { nil } }
    /// The `UUID` held, or nil.
    public var uuidValue: UUID? { if case .uuid(let value) = self { value } else { nil } }

    /// The dictionary held, or nil. A managed object's is live: changing it (in a write
    /// transaction) changes the stored value.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let value) = self { value } else { nil } }
    /// The list held, or nil. A managed object's is live: changing it (in a write transaction)
    /// changes the stored value.
    public var listValue: List<AnyRealmValue>? { if case .list(let value) = self { value } else { nil } }

    /// A value holding a new unmanaged dictionary of `dictionary`'s entries.
    ///
    /// - Parameter dictionary: The entries; their values may be lists and dictionaries too.
    /// - Returns: `.dictionary` of a new `Map`.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// A value holding a new unmanaged list of `array`'s elements.
    ///
    /// - Parameter array: The elements; they may be lists and dictionaries too.
    /// - Returns: `.list` of a new `List`.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// The object held, if it is a `T`.
    ///
    /// - Parameter objectType: The model class expected.
    /// - Returns: The object, or nil if the value is not an object of that class.
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let object) = self { object as? T } else { nil }
    }

    /// The object held, read by class name, or nil.
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let managed = object.managed else { return nil }
        return managed.realm.accessor(of: DynamicObject.self, key: managed.key, info: managed.realm.dynamicClassInfo(managed.info.schema.className))
    }
}

extension AnyRealmValue: RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.any) }
    public static func _persistedDefault() -> AnyRealmValue { .none }

    /// The stored value; a list or dictionary it holds comes as an unmanaged copy (a managed
    /// object's value is read with `init(mixed:realm:at:)`, which keeps them live).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> AnyRealmValue {
        AnyRealmValue(mixed: MixedValue(stored: stored.value), realm: realm, at: nil)
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        _StorageValue(storedForm(realm: realm, depth: 0))
    }

    /// A value of any supported type as a mixed value: the `AnyRealmValue` itself, nil (or
    /// `NSNull()`) as `.none`, or a value of one of its cases' types.
    public static func _fromAny(_ value: Any?) -> AnyRealmValue? {
        if isNull(value) { return AnyRealmValue.none }
        switch value {
        case let mixed as AnyRealmValue: return mixed
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(number)
        case let number as any BinaryInteger: return Int(exactly: number).map(AnyRealmValue.int)
        case let number as Float: return .float(number)
        case let number as Double: return .double(number)
        case let text as String: return .string(text)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let id as ObjectId: return .objectId(id)
        case let decimal as Decimal: return .decimal128(decimal)
        case let uuid as UUID: return .uuid(uuid)
        case let object as Object: return .object(object)
        case let list as List<AnyRealmValue>: return .list(list)
        case let map as Map<String, AnyRealmValue>: return .dictionary(map)
        case let dictionary as [String: Any?]: return fromAnyDictionary(dictionary)
        case let array as [Any?]: return fromAnyArray(array)
        default: return nil
        }
    }
}

extension Realm {
    /// The object a mixed value links to: an accessor of its model class when this realm knows
    /// the class by its model (one it used, or one of `objectTypes`), a `DynamicObject`
    /// otherwise; nil if it was deleted.
    func mixedLinkTarget(className: String, key: UInt64) -> Object? {
        guard objectSchemas[className] != nil else { return nil }
        let info = classInfos.values.first { $0.schema.className == className }
            ?? configuration.objectTypes?.first { $0.className() == className }.flatMap { try? classInfo(for: $0) }
            ?? dynamicClassInfo(className)
        guard readOrStop({ try readTable(info)?.contains(key) }) == true else { return nil }
        let object = info.type.init()
        object._manage(realm: self, key: key, info: info)
        info.writeSlots(into: object)
        return object
    }
}
