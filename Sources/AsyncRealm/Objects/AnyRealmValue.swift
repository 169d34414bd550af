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

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> AnyRealmValue {
        switch MixedValue(stored: stored.value) {
        case .none: return .none
        case .value(let value):
            switch value {
            case .bool(let flag): return .bool(flag)
            case .int(let number): return .int(Int(number))
            case .float(let number): return .float(number)
            case .double(let number): return .double(number)
            case .string(let text): return .string(text)
            case .binary(let bytes): return .data(Data(bytes))
            case .timestamp: return .date(Date._fromStorage(stored, realm: realm))
            case .uuid: return .uuid(UUID._fromStorage(stored, realm: realm))
            default: storageMismatch(stored, Self.self)
            }
        case .objectId(let bytes): return .objectId(ObjectId(bytes: bytes))
        case .decimal(let decimal): return .decimal128(decimal)
        case .object(let className, let key):
            return realm.mixedLinkTarget(className: className, key: key).map(AnyRealmValue.object) ?? .none
        case .malformed: storageMismatch(stored, Self.self)
        }
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        _StorageValue(stored(realm: realm))
    }

    private func stored(realm: Realm) -> RowValue {
        switch self {
        case .none: return .null
        case .int(let value): return .int(Int64(value))
        case .bool(let value): return .bool(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .data(let value): return .binary(Array(value))
        case .date(let value): return value._toStorage(realm: realm).value
        case .uuid(let value): return value._toStorage(realm: realm).value
        case .objectId(let value): return MixedValue.objectId(value.bytes).stored
        case .decimal128(let value): return MixedValue.decimal(value).stored
        case .object(let object):
            guard case .objectKey(let key) = object._toStorage(realm: realm).value else { return .null }
            let className = object.managed?.info.schema.className ?? type(of: object).className()
            return MixedValue.object(className: className, key: key).stored
        }
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
        default: return nil
        }
    }
}

extension Realm {
    /// The object a mixed value links to: an accessor of its model class when this realm knows
    /// the class by its model, a `DynamicObject` otherwise; nil if it was deleted.
    func mixedLinkTarget(className: String, key: UInt64) -> Object? {
        guard objectSchemas[className] != nil else { return nil }
        let info = classInfos.values.first { $0.schema.className == className } ?? dynamicClassInfo(className)
        guard readOrStop({ try readTable(info)?.contains(key) }) == true else { return nil }
        let object = info.type.init()
        object._manage(realm: self, key: key, info: info)
        info.writeSlots(into: object)
        return object
    }
}
