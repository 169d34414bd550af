import Foundation
import StorageEngine

/// An object read by class name, without its Swift model: every property is reached with a
/// string subscript, as in RealmSwift.
///
///     for dog in realm.dynamicObjects("Dog") {
///         print(dog["name"] as! String)
///     }
///
/// Values come back as `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`,
/// `Decimal`, `ObjectId`, `DynamicObject` for links, and arrays of those for lists; nil for a
/// null value.
public final class DynamicObject: Object {}

extension Realm {
    /// Every object of the class named `className`, read without its Swift model.
    ///
    /// - Important: The class must be in the realm's schema.
    ///
    /// - Parameter className: The name of a class in the realm's schema.
    /// - Returns: Live results of `DynamicObject`s, whose properties are read by name.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        checkThread()
        return Results(realm: self, info: dynamicClassInfo(className))
    }

    /// The object of the class named `className` whose primary key is `key`, read without its
    /// Swift model; nil if there is none.
    ///
    /// - Important: The class must be in the realm's schema and have a primary key, and `key`
    ///   must be a value of that key's type (`nil` or `NSNull()` for an optional key's null).
    ///
    /// - Parameters:
    ///   - className: The name of a class in the realm's schema.
    ///   - key: The primary key's value.
    /// - Returns: The object, whose properties are read by name, or nil.
    public func dynamicObject(ofType className: String, forPrimaryKey key: Any?) -> DynamicObject? {
        checkThread()
        let info = dynamicClassInfo(className)
        guard let property = info.schema.primaryKeyProperty else {
            stop("'\(className)' has no primary key; look its objects up with dynamicObjects(\"\(className)\").filter(_:)")
        }
        guard let stored = storageValue(dynamic: key, for: property) else {
            stop("\(key.map { "\(type(of: $0))" } ?? "nil") cannot be the primary key of '\(className)', which is \(property.typeName)")
        }
        return object(ofType: DynamicObject.self, forStoredPrimaryKey: _StorageValue(stored), info: info)
    }

    func dynamicClassInfo(_ className: String) -> ClassInfo {
        guard let schema = objectSchemas[className] else {
            stop("the realm has no class '\(className)'; its classes are \(objectSchemas.keys.sorted())")
        }
        if let info = dynamicClassInfos[className] { return info }
        // Kept for the realm's lifetime, as typed class infos are: accessors do not own theirs.
        let info = ClassInfo(schema: schema, type: DynamicObject.self)
        dynamicClassInfos[className] = info
        return info
    }

    func dynamicValue(named name: String, of managed: ManagedObjectState) -> Any? {
        checkThread()
        guard let property = managed.info.schema[name] else {
            stop("'\(managed.info.schema.className)' has no property '\(name)'")
        }
        if property.type == .linkingObjects {
            let origin = dynamicClassInfo(property.objectClassName ?? "")
            return linkingKeys(to: managed.key, of: managed.info.schema.className, through: property)
                .map { accessor(of: DynamicObject.self, key: $0, info: origin) }
        }
        let column = managed.info.columns[name]!
        if property.isMap {
            let entries = ManagedListLocation(owner: managed, column: column).entries()
            return dynamicDictionary(entries, of: property)
        }
        if property.isCollection {
            return listElements(of: managed, column: column).map { dynamicValue($0, of: property) }
        }
        return dynamicValue(self.column(column, of: managed), of: property)
    }

    /// A map's entries as a dictionary of dynamic values.
    func dynamicDictionary(_ entries: [MapStore.Entry], of property: Property) -> [String: Any?] {
        Dictionary(entries.map { ($0.key, dynamicValue($0.value, of: property)) }, uniquingKeysWith: { _, last in last })
    }

    func dynamicValue(_ value: RowValue, of property: Property) -> Any? {
        if property.type == .any { return mixedDynamicValue(MixedValue(stored: value)) }
        switch (value, property.type) {
        case (.null, _): return nil
        case (.bool(let flag), _): return flag
        case (.int(let number), _): return Int(number)
        case (.float(let number), _): return number
        case (.double(let number), _): return number
        case (.string, .decimal128): return Decimal._fromStorage(_StorageValue(value), realm: self)
        case (.string(let text), _): return text
        case (.binary, .objectId): return ObjectId._fromStorage(_StorageValue(value), realm: self)
        case (.binary(let bytes), _): return Data(bytes)
        case (.timestamp, _): return Date._fromStorage(_StorageValue(value), realm: self)
        case (.uuid, _): return UUID._fromStorage(_StorageValue(value), realm: self)
        case (.objectKey(let key), _):
            return accessor(of: DynamicObject.self, key: key, info: dynamicClassInfo(property.objectClassName ?? ""))
        case (.list(let elements), _): return elements.map { dynamicValue($0, of: property) }
        }
    }

    /// A stored `AnyRealmValue` as a dynamic value: the value itself, or a `DynamicObject`.
    private func mixedDynamicValue(_ mixed: MixedValue) -> Any? {
        switch mixed {
        case .none, .malformed: return nil
        case .value(let value): return dynamicValue(value, of: Property(name: "", type: .string, isOptional: true, isArray: false, isPrimary: false, isIndexed: false, objectClassName: nil, linkOriginPropertyName: nil))
        case .objectId(let bytes): return ObjectId(bytes: bytes)
        case .decimal(let decimal): return decimal
        case .object(let className, let key):
            guard objectSchemas[className] != nil, mixedLinkTarget(className: className, key: key) != nil else { return nil }
            return accessor(of: DynamicObject.self, key: key, info: dynamicClassInfo(className))
        }
    }

    func setDynamicValue(_ value: Any?, named name: String, of managed: ManagedObjectState) {
        checkThread()
        guard let property = managed.info.schema[name], let column = managed.info.columns[name] else {
            stop("'\(managed.info.schema.className)' has no stored property '\(name)'")
        }
        guard let stored = storageValue(dynamic: value, for: property) else {
            stop("property '\(name)' of '\(managed.info.schema.className)' is \(property), which \(value.map { "\(type(of: $0))" } ?? "nil") is not")
        }
        require(isWriting, "cannot change a managed object outside a write transaction; make the change inside realm.write { }")
        write(stored: stored, column: column, of: managed)
    }

    func storageValue(dynamic value: Any?, for property: Property) -> RowValue? {
        guard let value, !isNull(value) else { return property.isOptional ? .null : property.isCollection ? .list([]) : nil }
        let element = Property(name: property.name, type: property.type, isOptional: property.isOptional, isArray: false,
                               isPrimary: false, isIndexed: false, objectClassName: property.objectClassName, linkOriginPropertyName: nil)
        if property.isMap {
            guard let items = value as? [String: Any?] else { return nil }
            var entries: [MapStore.Entry] = []
            for (key, item) in items {
                guard let stored = isNull(item) ? RowValue.null : storageValue(dynamic: item, for: element) else { return nil }
                entries.append((key, stored))
            }
            return MapStore.encode(entries)
        }
        if property.isCollection {
            guard let items = value as? [Any?] else { return nil }
            var values: [RowValue] = []
            for item in items {
                guard let stored = storageValue(dynamic: item, for: element) else { return nil }
                values.append(stored)
            }
            return .list(values)
        }
        switch property.type {
        case .bool: return Bool._fromAny(value).map { .bool($0) }
        case .int: return Int64._fromAny(value).map { .int($0) }
        case .float: return Float._fromAny(value).map { .float($0) }
        case .double: return Double._fromAny(value).map { .double($0) }
        case .string: return String._fromAny(value).map { .string($0) }
        case .data: return Data._fromAny(value).map { .binary(Array($0)) }
        case .date: return Date._fromAny(value).map { $0._toStorage(realm: self).value }
        case .uuid: return UUID._fromAny(value).map { $0._toStorage(realm: self).value }
        case .decimal128: return Decimal._fromAny(value).map { $0._toStorage(realm: self).value }
        case .objectId: return ObjectId._fromAny(value).map { $0._toStorage(realm: self).value }
        case .object:
            guard let object = value as? Object, let managed = object.managed, managed.realm === self,
                  managed.info.schema.className == property.objectClassName else { return nil }
            return .objectKey(managed.key)
        case .linkingObjects: return nil
        case .any: return AnyRealmValue._fromAny(value).map { $0._toStorage(realm: self).value }
        }
    }
}
