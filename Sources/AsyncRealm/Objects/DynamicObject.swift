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
/// `Decimal`, `ObjectId` and `AnyRealmValue`, `DynamicObject` for links, and nil for a null
/// value. A list, set or map comes back live, as RealmSwift's: `List<DynamicObject>`,
/// `MutableSet<DynamicObject>` and `Map<String, DynamicObject?>` for objects, and `List<String>`,
/// `List<Int?>` and so on for values. Linking objects come back as an array of
/// `DynamicObject`s.
///
///     let dogs = person["dogs"] as! List<DynamicObject>
///     dogs.append(realm.dynamicObject(ofType: "Dog", forPrimaryKey: "Rex")!)
public final class DynamicObject: Object {
    /// Property `name` with its collections copied out, a list's or a set's elements as an
    /// array and a map as a dictionary (what the inspector writes), where the subscript gives
    /// live collections.
    package func plainValue(forKey name: String) -> Any? {
        guard let managed else { return self[name] }
        return managed.realm.plainDynamicValue(named: name, of: managed)
    }
}

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

    /// Property `name` of a managed `DynamicObject`, as its subscript reads it: a list, set or
    /// map as a live `List`, `MutableSet` or `Map` (see `dynamicCollection(at:of:)`).
    func dynamicValue(named name: String, of managed: ManagedObjectState) -> Any? {
        checkThread()
        let property = self.property(named: name, of: managed)
        if property.type != .linkingObjects, property.isCollection, let column = managed.info.columns[name] {
            return dynamicCollection(at: ManagedListLocation(owner: managed, column: column), of: property)
        }
        return plainDynamicValue(property, of: managed)
    }

    /// Property `name` of a managed object with its collections copied out: a list's or a
    /// set's elements as an array, a map as a dictionary.
    func plainDynamicValue(named name: String, of managed: ManagedObjectState) -> Any? {
        checkThread()
        return plainDynamicValue(property(named: name, of: managed), of: managed)
    }

    /// The property `name` of `managed`'s class; stops if it has none.
    private func property(named name: String, of managed: ManagedObjectState) -> Property {
        guard let property = managed.info.schema[name] else {
            stop("'\(managed.info.schema.className)' has no property '\(name)'")
        }
        return property
    }

    /// `property` of a managed object, its collections copied out (see
    /// `plainDynamicValue(named:of:)`). Holds no `Optional` in `Any`: nil, or the value.
    private func plainDynamicValue(_ property: Property, of managed: ManagedObjectState) -> Any? {
        let name = property.name
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

    /// A stored `AnyRealmValue` as a dynamic value: the value itself, or a `DynamicObject`; a
    /// list or dictionary it holds as an array or a dictionary of dynamic values.
    private func mixedDynamicValue(_ mixed: MixedValue) -> Any? {
        switch mixed {
        case .none, .malformed: return nil
        case .value(let value): return dynamicValue(value, of: Property(name: "", type: .string, isOptional: true, isArray: false, isPrimary: false, isIndexed: false, objectClassName: nil, linkOriginPropertyName: nil))
        case .objectId(let bytes): return ObjectId(bytes: bytes)
        case .decimal(let decimal): return decimal
        case .object(let className, let key):
            guard objectSchemas[className] != nil, mixedLinkTarget(className: className, key: key) != nil else { return nil }
            return accessor(of: DynamicObject.self, key: key, info: dynamicClassInfo(className))
        case .list(let elements):
            return elements.map { mixedDynamicValue(MixedValue(stored: $0)) }
        case .dictionary(let entries):
            return Dictionary(entries.map { ($0.key, mixedDynamicValue(MixedValue(stored: $0.value))) }, uniquingKeysWith: { _, last in last })
        }
    }

    func setDynamicValue(_ value: Any?, named name: String, of managed: ManagedObjectState) {
        checkThread()
        guard let property = managed.info.schema[name], let column = managed.info.columns[name] else {
            stop("'\(managed.info.schema.className)' has no stored property '\(name)'")
        }
        require(isWriting, "cannot change a managed object outside a write transaction; make the change inside realm.write { }")
        guard let stored = storageValue(dynamic: value, for: property) else {
            stop("property '\(name)' of '\(managed.info.schema.className)' is \(property), which \(value.map { "\(type(of: $0))" } ?? "nil") is not")
        }
        write(stored: stored, column: column, of: managed)
    }

    func storageValue(dynamic value: Any?, for property: Property) -> RowValue? {
        if let value, let stored = Self.storageValue(ofOwnType: value, for: property) { return stored }
        guard let value, !isNull(value) else { return property.isOptional ? .null : property.isCollection ? .list([]) : nil }
        if property.isMap {
            let element = property.elementProperty
            guard let items = value as? [String: Any?] ?? (value as? any DynamicMapEntries)?.dynamicEntries else { return nil }
            var entries: [MapStore.Entry] = []
            for (key, item) in items {
                guard let stored = isNull(item) ? RowValue.null : storageValue(dynamic: item, for: element) else { return nil }
                entries.append((key, stored))
            }
            return MapStore.encode(entries)
        }
        if property.isCollection {
            guard let items = Self.dynamicItems(value) else { return nil }
            let element = property.elementProperty
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
            if let object = value as? Object, let managed = object.managed {
                guard managed.info.schema.className == property.objectClassName else { return nil }
                if managed.realm === self { return .objectKey(managed.key) }
                return migratedKey(of: managed).map(RowValue.objectKey)
            }
            return linkToNewObject(of: property.objectClassName ?? "", from: value)
        case .linkingObjects: return nil
        case .any: return AnyRealmValue._fromAny(value).map { $0._toStorage(realm: self).value }
        }
    }

    /// The stored form of `value` if it is a value of the single-valued `property`'s own type,
    /// the usual value set by name (a migration's `newObject!["score"] = score * 2`): one cast.
    /// Nil for anything else, which takes the general way, where asking first whether the value
    /// stands for nil (`isNull`, two casts to a protocol and a class) was a tenth of a
    /// migration's block.
    private static func storageValue(ofOwnType value: Any, for property: Property) -> RowValue? {
        guard !property.isCollection else { return nil }
        switch property.type {
        case .int: if let number = value as? Int { return .int(Int64(number)) }
        case .double: if let number = value as? Double { return .double(number) }
        case .string: if let text = value as? String { return .string(text) }
        case .bool: if let flag = value as? Bool { return .bool(flag) }
        default: break
        }
        return nil
    }

    /// The key in this realm of `managed`, an `oldObject` of the migration this realm is
    /// running (`newObject!["pets"] = oldObject!["dogs"]`): objects keep their keys through a
    /// migration. Nil for any other object, and for one the migration deleted or whose class
    /// the new schema lacks.
    func migratedKey(of managed: ManagedObjectState) -> UInt64? {
        guard let source = migrationSource, managed.realm === source,
              let table = readTable(named: SchemaStore.tableName(forClass: managed.info.schema.className)),
              readOrStop({ try table.contains(managed.key) }) else { return nil }
        return managed.key
    }

    /// The elements of `value` given for a list or a set: an array, or a list, set or results.
    private static func dynamicItems(_ value: Any) -> [Any?]? {
        if let items = value as? [Any?] { return items }
        guard !(value is String), !(value is Data), !(value is any DynamicMapEntries),
              let sequence = value as? any Sequence else { return nil }
        return anyElements(of: sequence)
    }

    /// A link to a new object of class `className` made from `value` (an unmanaged object, a
    /// dictionary or an array of its property values), as RealmSwift's dynamic setters make
    /// one; nil if `value` cannot make one or there is no write transaction.
    private func linkToNewObject(of className: String, from value: Any) -> RowValue? {
        guard isWriting, let schema = objectSchemas[className] else { return nil }
        if let object = value as? Object, object.objectSchema.className != className { return nil }
        if let object = value as? Object, !(object is DynamicObject), let info = try? classInfo(for: type(of: object)),
           info.schema.className == className, !info.schema.isEmbedded {
            // An unmanaged model object becomes managed itself, as `add` makes it and as
            // RealmSwift's setters do: given again (to a list, another link), it is the same
            // object, not another copy.
            let failedBefore = transactionFailure != nil
            add(object)
            guard let managed = object.managed, failedBefore || transactionFailure == nil else { return nil }
            return .objectKey(managed.key)
        }
        guard value is Object || value is [String: Any?] || value is [Any?] else { return nil }
        let modelType = classInfos.values.first { $0.schema.className == className }?.type
        let defaults = ClassMigration.defaults(of: schema, type: modelType, realm: self)
        let failedBefore = transactionFailure != nil
        let created = dynamicCreate(className, value: value, defaults: defaults, modelType: modelType)
        guard let managed = created.managed, failedBefore || transactionFailure == nil else { return nil }
        return .objectKey(managed.key)
    }
}

extension Object {
    /// This object's values of the stored properties of `schema` it has, by name: what making
    /// an object of that class from this one (`create`, a link set by name) takes.
    func values(for schema: ObjectSchema) -> [String: Any?] {
        let names = Set(objectSchema.properties.map(\.name))
        return Dictionary(uniqueKeysWithValues: schema.storedProperties.filter { names.contains($0.name) }.map { ($0.name, self[$0.name]) })
    }
}

/// A map's entries by key, for storing them under a property read by name.
protocol DynamicMapEntries {
    var dynamicEntries: [String: Any?] { get }
}

extension Map: DynamicMapEntries {
    var dynamicEntries: [String: Any?] {
        Dictionary(asKeyValueSequence().map { entry -> (String, Any?) in (entry.key._mapKeyString, entry.value) }, uniquingKeysWith: { _, last in last })
    }
}
