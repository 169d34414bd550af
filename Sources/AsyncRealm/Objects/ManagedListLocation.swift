import StorageEngine

/// Where the list, set or map of a managed object is stored: its owner and the collection's
/// column (see `ListStore`, `SetStore` and `MapStore`).
struct ManagedListLocation {
    let owner: ManagedObjectState
    let column: Int

    var realm: Realm { owner.realm }

    /// What the user calls the collection in messages: "list 'Person.dogs'", "set 'Person.tags'",
    /// "map 'Person.scores'".
    var noun: String {
        let property = owner.info.schema.storedProperties[column]
        return "\(property.isSet ? "set" : property.isMap ? "map" : "list") '\(owner.info.schema.className).\(property.name)'"
    }

    var count: Int { realm.listCount(of: owner, column: column) }

    func element(at position: Int) -> RowValue {
        realm.listElement(of: owner, column: column, at: position)
    }

    /// The elements of a list or set, or the values of a map.
    func values() -> [RowValue] {
        realm.listElements(of: owner, column: column)
    }

    /// The entries of a map, in key order.
    func entries() -> [MapStore.Entry] {
        read { table, count in try MapStore.entries(in: table, owner: owner.key, count: count) }
    }

    func checkWritable() {
        realm.checkThread()
        require(!realm.isFrozen, "the \(noun) is frozen and cannot be changed; change its live version (thaw() gives it) in a write transaction")
        require(realm.isWriting, "cannot change the managed \(noun) outside a write transaction; make the change inside realm.write { }")
    }

    /// The class of the objects the collection holds, if it holds objects.
    var targetClassName: String? { owner.info.schema.storedProperties[column].objectClassName }

    /// The stored form of `element`, adding it to the realm if it is an unmanaged object.
    func stored<Element: _Persistable>(_ element: Element) -> RowValue {
        checkWritable()
        if let object = element as? DynamicObject, let managed = object.managed {
            if managed.info.schema.className != targetClassName {
                realm.fail(RealmError(
                    code: .invalidValue,
                    message: "the \(noun) holds '\(targetClassName ?? "")' objects, not a '\(managed.info.schema.className)'"))
                return .null
            }
            // An `oldObject` of a migration stands for the same object in the new version.
            if managed.realm !== realm, let key = realm.migratedKey(of: managed) { return .objectKey(key) }
        }
        return storedLink(element, realm: realm).value
    }

    /// The stored `value` as an element of type `Element`. A `DynamicObject` element (of a
    /// collection read by property name, see `DynamicObject`) is an accessor of the class the
    /// collection holds, which its type alone does not say.
    ///
    /// A list or dictionary in a mixed element is live at `root` (the element's place), when
    /// given.
    func element<Element: _Persistable>(_ value: RowValue, as _: Element.Type, at root: NestedCollectionLocation.Root? = nil) -> Element {
        if Element.self == AnyRealmValue.self, let root {
            return AnyRealmValue(mixed: MixedValue(stored: value), realm: realm, at: NestedCollectionLocation(root: root, path: [])) as! Element
        }
        if Element.self == DynamicObject.self || Element.self == DynamicObject?.self, case .objectKey(let key) = value {
            let object = realm.accessor(of: DynamicObject.self, key: key, info: realm.dynamicClassInfo(targetClassName ?? ""))
            return (object as? Element) ?? (Optional(object) as! Element)
        }
        if Element.self == DynamicObject.self, value == .null {
            stop("the \(noun) holds nil under a key whose object was deleted; read it with dynamicMap as Map<String, DynamicObject?> to see such keys")
        }
        return Element._fromStorage(_StorageValue(value), realm: realm)
    }

    /// The stored form of `element` for finding it, without adding anything: nil for an object
    /// this realm does not manage, which no collection of the realm holds.
    func lookupValue<Element: _Persistable>(_ element: Element) -> RowValue? {
        if let object = element as? Object {
            guard let managed = object.managed, managed.realm === realm, !managed.isInvalidated,
                  managed.info.schema.className == targetClassName else { return nil }
            return .objectKey(managed.key)
        }
        return element._toStorage(realm: realm).value
    }

    /// Reads the collection's element table and length with `body`; damage stops (see
    /// `Realm.stopOnDamage`).
    func read<T>(_ body: (any TableReading, Int) throws -> T) -> T {
        realm.readList(of: owner, column: column, body)
    }

    func checkIndex(_ index: Int, within count: Int) {
        require(index >= 0 && index < count, "index \(index) is out of bounds for the \(noun), which has \(count) elements")
    }

    func change(_ body: (TableWriter, Int) throws -> Int) {
        realm.changeList(of: owner, column: column, body)
    }
}
