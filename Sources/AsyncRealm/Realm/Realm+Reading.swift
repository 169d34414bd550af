import StorageEngine

extension Realm {
    /// Every object of `type`, in insertion order.
    ///
    /// - Parameter type: The model class.
    /// - Returns: Live results of every object of the class.
    @inlinable
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        // Inlined into the caller, which knows `Element`: the type `Results<Element>` is then
        // found once and kept there, where code generic over `Element` looks it up in the
        // runtime's table of generic types on every call (a third of a whole-class count).
        Results(everyObjectOf: type, in: self)
    }

    /// The object of `type` whose primary key is `key`, or nil if there is none.
    ///
    /// - Parameters:
    ///   - type: The model class, which must have a primary key.
    ///   - key: A value of the primary key's type.
    /// - Returns: The object, or nil.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        if let key = key as? _Persistable {
            return object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self), keyType: Swift.type(of: key))
        }
        // `NSNull()` for an optional key's null, as RealmSwift takes it, or a value typed `Any`.
        let info = classInfoOrStop(for: type)
        guard let property = info.schema.primaryKeyProperty, let stored = storageValue(dynamic: key, for: property) else {
            stop("\(KeyType.self) cannot be the primary key of '\(info.schema.className)', which is \(info.schema.primaryKeyProperty?.typeName ?? "not declared")")
        }
        return object(ofType: type, forStoredPrimaryKey: _StorageValue(stored))
    }

    /// The object of `type` whose primary key is `key`: the overload for keys whose type is
    /// known to be storable, with no dynamic cast.
    ///
    /// - Important: `key` must be of the primary key's type (an `Int` of any width for an
    ///   integer key, nil for an optional key's null): a key of another type stops, as in
    ///   RealmSwift, rather than finding nothing.
    ///
    /// - Parameters:
    ///   - type: The model class, which must have a primary key.
    ///   - key: A value of the primary key's type.
    /// - Returns: The object, or nil.
    public func object<Element: Object, KeyType: _Persistable>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self), keyType: KeyType.self)
    }

    /// Stops unless `value`, a key of type `keyType` in its stored form, is of the type of
    /// `info`'s primary key, as RealmSwift checks a lookup's key: a key of another type would
    /// find nothing rather than say why.
    private func checkPrimaryKey(_ value: RowValue, of keyType: Any.Type, info: ClassInfo) {
        guard let property = info.schema.primaryKeyProperty else { return }
        let fits = switch (value, property.type) {
        case (.null, _): property.isOptional
        case (.int, .int), (.string, .string), (.uuid, .uuid), (.binary, .objectId): true
        default: false
        }
        require(fits, "\(keyType) cannot be the primary key of '\(info.schema.className)', which is \(property.typeName); look it up with a value of that type")
    }

    private func object<Element: Object>(ofType type: Element.Type, forStoredPrimaryKey stored: _StorageValue, keyType: Any.Type? = nil) -> Element? {
        checkThread()
        // Borrowed, counting no reference: the realm keeps its class infos for its whole life,
        // and the info its table until the realm changes, which no step before the table's last
        // use here can do.
        return unretainedClassInfoOrStop(for: type)._withUnsafeGuaranteedRef { info in
            object(ofType: type, forStoredPrimaryKey: stored, info: info, keyType: keyType)
        }
    }

    /// The object of `info`'s class whose primary key is `stored`; a `keyType` given is checked
    /// against the primary key's type (see `checkPrimaryKey`) where the integer keys' own path
    /// does not already show it fits.
    func object<Element: Object>(ofType type: Element.Type, forStoredPrimaryKey stored: _StorageValue, info: ClassInfo, keyType: Any.Type? = nil) -> Element? {
        guard let column = info.primaryKeyColumn else {
            stop("'\(info.schema.className)' has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        if info.primaryKeyGivesRowKeys, case .int(let number) = stored.value, let key = PrimaryKeyRowKey.key(for: number) {
            // The row starts loading here, and arrives while the object is made and the tree
            // descended.
            info.primaryKeyLeaves?.prefetch(key)
            // Made first: the model's initialiser runs before the table and the lookup buffer
            // are borrowed, so nothing it does (look up another object of its class, refresh
            // the realm) can reuse or free them under this lookup. Made managed before its row
            // is read, since none of that needs the row: counting the realm is an atomic
            // operation, which waits for every load before it, so done after the read it
            // waited for the row as well.
            let object = accessor(of: type, key: key, info: info)
            // Borrowed for the read: this function holds it (counted around the call, it
            // cost two atomic operations a lookup).
            let found = Unmanaged.passUnretained(object as Object)._withUnsafeGuaranteedRef { object in
                readRow(key, primaryKey: number, column: column, info: info, into: object)
            }
            if found { return object }
        }
        if let keyType { checkPrimaryKey(stored.value, of: keyType, info: info) }
        guard let table = borrowedTable(info) else { return nil }
        let found = table._withUnsafeGuaranteedRef { table in
            readOrStop { try table.reading.firstKey(where: column, equals: stored.value) }
        }
        return found.map { accessor(of: type, key: $0, info: info) }
    }

    /// Gives `object`, made the accessor of row `key`, its row if that row's primary key (at
    /// `column`), an integer, is `primaryKey`, with the row read once for the check and the
    /// accessor both (`PrimaryKeyRowKey`); false if there is no such row.
    private func readRow(_ key: UInt64, primaryKey: Int64, column: Int, info: ClassInfo, into object: Object) -> Bool {
        // The class info keeps both its table and its lookup buffer until the realm changes
        // or the next lookup: borrowed, they count no reference.
        guard let table = borrowedTable(info) else { return false }
        return table._withUnsafeGuaranteedRef { table in
            info.lookupBuffer(in: self)._withUnsafeGuaranteedRef { buffer in
                guard let range = readOrStop({ try buffer.appendRow(key, of: table.reading, noting: info.primaryKeyLeaves) }) else {
                    return false
                }
                // The typed read leaves its cursor at the key, which the accessor takes: reading a
                // property after it resumes there. A row it does not expect (damage) takes the
                // checked read, which reports it.
                let row = buffer.bytes(at: range)
                var cursor = ColumnCursor()
                guard (RowCodec.integer(column, of: row, cursor: &cursor) ?? readOrStop({ try RowCodec.integer(column, of: row) })) == primaryKey else {
                    return false
                }
                give(lookedUp: object, row: range, of: buffer, cursor: cursor)
                return true
            }
        }
    }
}

/// Builds `LinkingObjects` of a type known only at run time.
protocol LinkingObjectsBuilding {
    static func build(realm: Realm, source: LinkingSource) -> Self
}

extension LinkingObjects: LinkingObjectsBuilding {
    static func build(realm: Realm, source: LinkingSource) -> LinkingObjects {
        LinkingObjects(realm: realm, source: source)
    }
}
