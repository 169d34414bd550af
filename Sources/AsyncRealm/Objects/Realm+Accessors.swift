import StorageEngine

/// Accessors of stored objects: making them, reading and writing their properties, and the
/// failure a write records.
extension Realm {
    /// A managed accessor of row `key` of `type`, whose row is read when a property needs it.
    func accessor<T: Object>(of type: T.Type, key: UInt64) -> T {
        accessor(of: type, key: key, info: classInfoOrStop(for: type))
    }

    /// A managed accessor of row `key` of `type`, whose class info is `info`.
    func accessor<T: Object>(of type: T.Type, key: UInt64, info: ClassInfo) -> T {
        // (`info` not optional: unwrapped from an optional, it was counted around the model's
        // initialiser, two atomic operations a lookup.)
        let object = T()
        // Borrowed: the new object is this function's until it returns (see
        // `give(lookedUp:row:of:cursor:)`).
        Unmanaged.passUnretained(object as Object)._withUnsafeGuaranteedRef { object in
            object._manage(realm: self, key: key, info: info)
            info.writeSlots(into: object)
        }
        return object
    }

    /// A managed accessor of row `key` of `type` with its row already read, at `range` of
    /// `buffer` (a buffer of this realm): what iterating `Results` makes.
    func accessor<T: Object>(of type: T.Type, key: UInt64, row range: Range<Int>, of buffer: RowBuffer, info: ClassInfo) -> T {
        let object = T()
        Unmanaged.passUnretained(object as Object)._withUnsafeGuaranteedRef { object in
            object._manage(key: key, info: info, row: range, of: buffer, stamp: stamp)
            info.writeSlots(into: object)
        }
        return object
    }

    /// Gives `object`, an accessor made by `accessor(of:key:info:)` for a lookup by primary
    /// key, its row, read into the class's lookup buffer, which does not keep the realm alive
    /// (the accessor counts the realm itself, `__realmOwner`); it resumes reading the row at
    /// `cursor`.
    func give(lookedUp object: Object, row range: Range<Int>, of buffer: RowBuffer, cursor: ColumnCursor) {
        // Borrowed: the caller holds the object (counting it here cost two atomic operations).
        Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef { object in
            object._setRow(range, of: buffer, stamp: stamp)
            object.__rowCursor = cursor
        }
    }

    func isInvalidated(_ managed: ManagedObjectState) -> Bool {
        if managed.isInvalidated { return true }
        return !(readOrStop { try cachedTable(managed.info)?.reading.contains(managed.key) } ?? false)
    }

    /// Makes sure the object's row is the one this handle reads now, reading it again if not.
    private func refreshRow(_ managed: ManagedObjectState) {
        if managed.hasCurrentRow { return }
        require(!managed.isInvalidated, "this \(managed.info.schema.className) was deleted, added in a write that was cancelled, or read before its realm was invalidated; check isInvalidated before using it")
        let buffer = RowBuffer.make(realm: self, tableName: managed.info.schema.className, capacity: 64)
        guard let table = cachedTable(managed.info), let range = readOrStop({ try buffer.appendRow(managed.key, of: table.reading) }) else {
            stop("this \(managed.info.schema.className) was deleted from its realm; check isInvalidated before using it")
        }
        managed.setRow(range, of: buffer, stamp: stamp)
    }

    /// The object's row as this handle reads it now.
    func currentRow(_ managed: ManagedObjectState) -> [RowValue] {
        refreshRow(managed)
        return RowBuffer.decode(managed.row, table: managed.info.schema.className)
    }

    /// Reads a property that is not a value column (a list, linking objects, or any property
    /// of a recorder): the general path of `ManagedObjectState.read`.
    @usableFromInline
    func read<V: _Persistable>(_: V.Type, of managed: ManagedObjectState, slot: UInt16) -> V {
        checkThread()
        let property = managed.info.property(forSlot: slot)
        if managed.isRecorder {
            recordedProperty = property.name
            guard recordedPath != nil else { return V._persistedDefault() }
            recordedPath!.append(property.name)
            // A to-one link gives a recorder of its class, so that the path goes on through it.
            if property.type == .object, !property.isCollection, let target = property.objectClassName,
               let info = classInfos.values.first(where: { $0.schema.className == target }),
               let linked = recorder(info) as Any as? V {
                return linked
            }
            return V._persistedDefault()
        }
        return read(V.self, of: managed, access: managed.info.access[property.name]!)
    }

    /// The name of the property `keyPath` reads on objects of `type`, found by reading it
    /// through a recorder (see `ManagedObjectState.recordedProperty`).
    func propertyName<T: Object>(of keyPath: PartialKeyPath<T>, in type: T.Type) -> String {
        // Swift 6.3 type-checks `$0.name.count` inside a `where` closure by calling a
        // `Query where T: Object` member subscript with T = String; stop before `T()`.
        require(isObjectClass(type), "\(keyPath) is not a property of an Object, so a query cannot follow it; compare the property itself (for an enum, its rawValue)")
        let recorder = recorder(classInfoOrStop(for: type)) as! T
        recordedProperty = ""
        _ = recorder[keyPath: keyPath]
        let name = recordedProperty
        guard !name.isEmpty else {
            stop("\(keyPath) is not a @Persisted property of '\(type.className())'; queries can only use persisted properties")
        }
        return name
    }

    /// The key path `keyPath` follows from objects of `type`, through to-one links, as text:
    /// `"address.city"`.
    func keyPathText<T: Object>(of keyPath: PartialKeyPath<T>, in type: T.Type) -> String {
        let recorder = recorder(classInfoOrStop(for: type)) as! T
        recordedPath = []
        defer { recordedPath = nil }
        _ = recorder[keyPath: keyPath]
        guard let path = recordedPath, !path.isEmpty else {
            stop("\(keyPath) does not read a @Persisted property of '\(type.className())'; a projection projects persisted properties")
        }
        return path.joined(separator: ".")
    }

    /// An accessor of `info`'s class that records the properties read through it instead of
    /// reading them (see `propertyName(of:in:)`).
    private func recorder(_ info: ClassInfo) -> Object {
        let recorder = info.type.init()
        recorder._manage(realm: self, key: 0, info: info)
        recorder.__isRecorder = true
        info.writeSlots(into: recorder, recorder: true)
        return recorder
    }

    /// Whether `type` is an `Object` subclass, decided at run time: kept out of line so that the
    /// optimiser cannot assume the answer from a generic constraint.
    @inline(never)
    private func isObjectClass(_ type: Any.Type) -> Bool { type is Object.Type }

    /// Property `name` of a managed object, as a `V`.
    func read<V: _Persistable>(_: V.Type, of managed: ManagedObjectState, named name: String) -> V {
        read(V.self, of: managed, access: managed.info.access[name]!)
    }

    private func read<V: _Persistable>(_: V.Type, of managed: ManagedObjectState, access: PropertyAccess) -> V {
        switch access {
        case .value(let column):
            if V.self == AnyRealmValue.self { return managed.object._mixedValue(column: column, in: self) as! V }
            return V._fromStorage(_StorageValue(self.column(column, of: managed)), realm: self)
        case .list(let column):
            require(!isInvalidated(managed), "this object was deleted from its realm; check isInvalidated before using it")
            return (V.self as! ManagedListBuilding.Type).managed(at: ManagedListLocation(owner: managed, column: column)) as! V
        case .linkingObjects(let property):
            require(!isInvalidated(managed), "this object was deleted from its realm; check isInvalidated before using it")
            let source = LinkingSource(target: managed.key, targetClass: managed.info.schema.className, property: property)
            return (V.self as! LinkingObjectsBuilding.Type).build(realm: self, source: source) as! V
        }
    }

    /// Property `name` of a managed object, typed `Any` (for `value(forKey:)`).
    func value(named name: String, of managed: ManagedObjectState, object: Object) -> Any? {
        checkThread()
        guard managed.info.schema[name] != nil, let storage = object.persistedType(of: name) else {
            stop("'\(managed.info.schema.className)' has no property '\(name)'")
        }
        return storage.read(from: self, managed: managed, named: name)
    }

    /// Sets property `name` of a managed object from a value typed `Any` (for `setValue`).
    func setValue(_ value: Any?, named name: String, of managed: ManagedObjectState, object: Object) {
        checkThread()
        guard managed.info.schema[name] != nil, let storage = object.persistedType(of: name) else {
            stop("'\(managed.info.schema.className)' has no property '\(name)'")
        }
        storage.write(value, to: self, managed: managed, named: name)
    }

    /// One stored column of a managed object, as this handle reads it now.
    func column(_ column: Int, of managed: ManagedObjectState) -> RowValue {
        checkThread()
        refreshRow(managed)
        return RowBuffer.column(column, of: managed.row, cursor: &managed.object.__rowCursor, table: managed.info.schema.className)
    }

    /// Sets one stored column of a managed object; needs a write transaction.
    func setColumn(_ column: Int, of managed: ManagedObjectState, to value: RowValue) {
        checkThread()
        guard let transaction = transactionForChange("cannot change a managed object outside a write transaction; make the change inside realm.write { }") else { return }
        require(!managed.isInvalidated, "this \(managed.info.schema.className) was deleted from its realm or invalidated; check isInvalidated before changing it")
        let found: Bool
        do {
            found = try writeTable(managed.info, in: transaction).set(managed.key, column: column, to: value)
        } catch {
            fail(error)
            return
        }
        // No row: another handle deleted the object in a commit this write transaction
        // started after. Storing nothing without a word would lose the change.
        require(found, "this \(managed.info.schema.className) was deleted from its realm or invalidated; check isInvalidated before changing it")
        bumpStamp()
    }

    /// Sets a property that is not a value column (a list, set or map): the general path of
    /// `ManagedObjectState.write`.
    @usableFromInline
    func write<V: _Persistable>(_ value: V, of managed: ManagedObjectState, slot: UInt16) {
        checkThread()
        write(value, of: managed, named: managed.info.property(forSlot: slot).name)
    }

    /// Sets property `name` of a managed object; needs a write transaction.
    func write<V: _Persistable>(_ value: V, of managed: ManagedObjectState, named name: String) {
        require(isWriting, "cannot change a managed object outside a write transaction; make the change inside realm.write { }")
        guard let column = managed.info.columns[name] else {
            stop("'\(managed.info.schema.className).\(name)' is LinkingObjects, which are read-only")
        }
        write(stored: value._toStorage(realm: self).value, column: column, of: managed)
    }

    /// Sets stored column `column` of a managed object; needs a write transaction. Changing
    /// the primary key stops, except in a migration (as in RealmSwift).
    func write(stored: RowValue, column: Int, of managed: ManagedObjectState) {
        if managed.info.listTables[column] != nil {
            let contents = CollectionContents(stored, of: managed.info.schema.storedProperties[column])
            changeList(of: managed, column: column) { table, count in
                try contents.store(in: table, owner: managed.key, replacing: count)
                return contents.count
            }
            return
        }
        if managed.info.primaryKeyColumn == column, !isMigrating, !self.column(column, of: managed).isIdentical(to: stored) {
            let name = managed.info.schema.storedProperties[column].name
            stop("Primary key can't be changed after an object is inserted: '\(managed.info.schema.className).\(name)' identifies the object; delete it and add a new one with the new key instead")
        }
        let property = managed.info.schema.storedProperties[column]
        guard property.type == .object, holdsEmbedded(property), let transaction else {
            setColumn(column, of: managed, to: stored)
            return
        }
        // The embedded object the link held goes when the link lets go of it.
        let old = self.column(column, of: managed)
        setColumn(column, of: managed, to: stored)
        do {
            try deleteReleased(property, old: [old], new: [stored], in: transaction)
        } catch {
            fail(error)
        }
    }

    /// Records the first error of the transaction: the commit throws it.
    func fail(_ error: any Swift.Error) {
        guard transactionFailure == nil else { return }
        if let error = error as? RealmError {
            transactionFailure = error
        } else if let error = error as? StorageError {
            transactionFailure = error.duplicate.flatMap(duplicatePrimaryKey) ?? RealmError(error)
        } else {
            transactionFailure = RealmError(code: .invalidValue, message: "\(error)")
        }
    }

    /// The error for a primary key value already in the realm, in the words of the model:
    /// "an object of class 'Item' with primary key 'id' 1 already exists". Nil if the table is
    /// not a class's.
    private func duplicatePrimaryKey(_ duplicate: StorageError.Duplicate) -> RealmError? {
        guard let schema = objectSchemas.values.first(where: { SchemaStore.tableName(forClass: $0.className) == duplicate.table }),
              duplicate.column < schema.storedProperties.count else { return nil }
        let property = schema.storedProperties[duplicate.column]
        let value = QueryScalar(stored: duplicate.value, type: property.type).swiftValue(type: property.type)
        let shown = value.map { $0 is String ? "'\($0)'" : "\($0)" } ?? "nil"
        return RealmError(
            code: .duplicatePrimaryKey,
            message: "an object of class '\(schema.className)' with primary key '\(property.name)' \(shown) already exists; add it with update: .modified or .all to update that object")
    }
}
