import Foundation
import StorageEngine

// The list, set and map properties of an object read by name, as RealmSwift gives them: a
// managed, live `List`, `MutableSet` or `Map`, whose objects are `DynamicObject`s of the class
// the property holds (`newObject!["dogs"] as! List<MigrationObject>` in a migration block).

extension Object {
    /// The list property `propertyName` of this managed object, its objects read by name.
    ///
    ///     let dogs = person.dynamicList("dogs")
    ///     print(dogs.first?["name"] as? String ?? "none")
    ///
    /// - Important: The object must be managed, and `propertyName` a list of objects.
    ///
    /// - Parameter propertyName: The name of a `List` property of objects.
    /// - Returns: The live list, as `DynamicObject`s of the class it holds.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        List(location: dynamicCollectionLocation(propertyName, kind: "a list", isKind: \.isArray))
    }

    /// The set property `propertyName` of this managed object, its objects read by name.
    ///
    /// - Important: The object must be managed, and `propertyName` a set of objects.
    ///
    /// - Parameter propertyName: The name of a `MutableSet` property of objects.
    /// - Returns: The live set, as `DynamicObject`s of the class it holds.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        MutableSet(location: dynamicCollectionLocation(propertyName, kind: "a set", isKind: \.isSet))
    }

    /// The map property `propertyName` of this managed object, its objects read by name.
    ///
    /// Read it as `Map<String, DynamicObject?>`, as RealmSwift gives it and as the subscript
    /// does: a key whose object was deleted keeps its entry, with nil. As
    /// `Map<String, DynamicObject>`, iterating such a key stops.
    ///
    /// - Important: The object must be managed, and `propertyName` a map of objects.
    ///
    /// - Parameter propertyName: The name of a `Map` property of objects.
    /// - Returns: The live map, its values `DynamicObject`s of the class it holds.
    public func dynamicMap<Key: _MapKey, Value: RealmCollectionValue>(_ propertyName: String) -> Map<Key, Value> {
        require(Value.self == DynamicObject.self || Value.self == DynamicObject?.self,
                "dynamicMap reads a map's objects as DynamicObject or DynamicObject?, not \(Value.self)")
        return Map(location: dynamicCollectionLocation(propertyName, kind: "a map", isKind: \.isMap))
    }

    /// Where the collection of objects `name` of this managed object is stored.
    private func dynamicCollectionLocation(_ name: String, kind: String, isKind: KeyPath<Property, Bool>) -> ManagedListLocation {
        guard let managed else {
            stop("dynamicList, dynamicMutableSet and dynamicMap read a managed object; this '\(Self.className())' is unmanaged, so use its property directly")
        }
        managed.realm.checkThread()
        let schema = managed.info.schema
        guard let property = schema[name], let column = managed.info.columns[name] else {
            stop("'\(schema.className)' has no property '\(name)'")
        }
        require(property[keyPath: isKind] && property.type == .object,
                "property '\(name)' of '\(schema.className)' is \(property.typeName), not \(kind) of objects")
        return ManagedListLocation(owner: managed, column: column)
    }
}

extension Realm {
    /// The collection property `property`, stored at `location`, as a `DynamicObject` gives it:
    /// a managed `List`, `MutableSet` or `Map` (with `String` keys) of the Swift type of its
    /// values, `DynamicObject` for objects (`DynamicObject?` in a map).
    func dynamicCollection(at location: ManagedListLocation, of property: Property) -> Any {
        func make<T: RealmCollectionValue>(_: T.Type) -> Any {
            if property.isMap { return Map<String, T>(location: location) }
            if property.isSet { return MutableSet<T>(location: location) }
            return List<T>(location: location)
        }
        func make<T: RealmCollectionValue & _PersistableInsideOptional>(_: T.Type, optional: Bool) -> Any {
            optional ? make(T?.self) : make(T.self)
        }
        let optional = property.isOptional
        switch property.type {
        case .bool: return make(Bool.self, optional: optional)
        case .int: return make(Int.self, optional: optional)
        case .float: return make(Float.self, optional: optional)
        case .double: return make(Double.self, optional: optional)
        case .string: return make(String.self, optional: optional)
        case .data: return make(Data.self, optional: optional)
        case .date: return make(Date.self, optional: optional)
        case .uuid: return make(UUID.self, optional: optional)
        case .decimal128: return make(Decimal.self, optional: optional)
        case .objectId: return make(ObjectId.self, optional: optional)
        case .any: return make(AnyRealmValue.self)
        // A map's objects are optional, as a model's must be (`Map<String, Dog?>`): a key keeps
        // its entry when its object is deleted, and reads nil.
        case .object, .linkingObjects: return property.isMap ? make(DynamicObject?.self) : make(DynamicObject.self)
        }
    }
}
