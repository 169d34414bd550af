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
        guard let key = key as? _Persistable else {
            let info = classInfoOrStop(for: type)
            stop("\(KeyType.self) cannot be the primary key of '\(info.schema.className)', which is \(info.schema.primaryKeyProperty?.type.rawValue ?? "not declared")")
        }
        return object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self))
    }

    /// The object of `type` whose primary key is `key`: the overload for keys whose type is
    /// known to be storable, with no dynamic cast.
    ///
    /// - Parameters:
    ///   - type: The model class, which must have a primary key.
    ///   - key: A value of the primary key's type.
    /// - Returns: The object, or nil.
    public func object<Element: Object, KeyType: _Persistable>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self))
    }

    private func object<Element: Object>(ofType type: Element.Type, forStoredPrimaryKey stored: _StorageValue) -> Element? {
        checkThread()
        // Borrowed, counting no reference: the realm keeps its class infos for its whole life,
        // and the info its table until the realm changes, which no step before the table's last
        // use here can do.
        return Unmanaged.passUnretained(classInfoOrStop(for: type))._withUnsafeGuaranteedRef { info in
            object(ofType: type, forStoredPrimaryKey: stored, info: info)
        }
    }

    func object<Element: Object>(ofType type: Element.Type, forStoredPrimaryKey stored: _StorageValue, info: ClassInfo) -> Element? {
        guard let column = info.primaryKeyColumn else {
            stop("'\(info.schema.className)' has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        guard let table = cachedTable(info).map(Unmanaged.passUnretained) else { return nil }
        return table._withUnsafeGuaranteedRef { table in
            if info.primaryKeyGivesRowKeys, case .int(let number) = stored.value, let key = PrimaryKeyRowKey.key(for: number),
               let found = object(ofType: type, key: key, primaryKey: number, column: column, in: table.reading, info: info) {
                return found
            }
            guard let found = readOrStop({ try table.reading.firstKey(where: column, equals: stored.value) }) else { return nil }
            return accessor(of: type, key: found, info: info)
        }
    }

    /// The object at row `key` if its primary key (at `column`), an integer, is `primaryKey`,
    /// with its row read once for the lookup and the accessor both (`PrimaryKeyRowKey`).
    private func object<Element: Object>(
        ofType type: Element.Type, key: UInt64, primaryKey: Int64, column: Int, in table: any TableReading, info: ClassInfo
    ) -> Element? {
        let buffer = info.lookupBuffer(in: self)
        guard let range = readOrStop({ try buffer.appendRow(key, of: table) }) else { return nil }
        // The typed read leaves its cursor at the key, which the accessor takes: reading a
        // property after it resumes there. A row it does not expect (damage) takes the checked
        // read, which reports it.
        let row = buffer.bytes(at: range)
        var cursor = ColumnCursor()
        guard (RowCodec.integer(column, of: row, cursor: &cursor) ?? readOrStop({ try RowCodec.integer(column, of: row) })) == primaryKey else {
            return nil
        }
        let object = accessor(of: type, key: key, row: range, of: buffer, info: info)
        // The buffer does not keep the realm alive; the object does.
        object.__realmOwner = self
        object.__rowCursor = cursor
        return object
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
