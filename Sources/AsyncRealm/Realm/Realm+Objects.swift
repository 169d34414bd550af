import StorageEngine

extension Realm {
    // MARK: Classes

    /// The realm's view of model class `type`, registering it (and the classes it links to) the
    /// first time it is used.
    func classInfo(for type: Object.Type) throws -> ClassInfo {
        // Keyed by the type's identity: computing a class name (`String(describing:)`) on every
        // accessor would cost more than reading the row.
        if let info = lastClassInfo, info.type == type { return info }
        if let info = classInfos[ObjectIdentifier(type)] {
            lastClassInfo = info
            return info
        }
        let name = type.className()
        try register(SchemaDiscovery.schema(for: [type]))
        let info = ClassInfo(schema: objectSchemas[name]!, type: type)
        classInfos[ObjectIdentifier(type)] = info
        return info
    }

    func classInfoOrStop(for type: Object.Type) -> ClassInfo {
        do {
            return try classInfo(for: type)
        } catch {
            stop("cannot use '\(type.className())' with this realm: \(error)")
        }
    }

    /// The table of `info`'s class as this handle reads it now; nil if it has no table yet.
    /// Kept in `info` until the realm changes, which saves finding it by name on every read.
    func readTable(_ info: ClassInfo) -> (any TableReading)? {
        if info.tableStamp == stamp { return info.table }
        let table = readTable(named: info.tableName)
        info.table = table
        info.tableStamp = stamp
        return table
    }

    /// The table of `info`'s class in the current write transaction, kept in `info` for the
    /// rest of the transaction.
    func writeTable(_ info: ClassInfo, in transaction: WriteTransaction) throws -> TableWriter {
        if info.writerSerial == transactionSerial, let writer = info.writer { return writer }
        if transaction.tableIfPresent(info.tableName) == nil {
            // The class was registered inside a write that was then cancelled: its schema and
            // tables went with that write, while this handle still knows the class. Store them
            // again in this one.
            if try SchemaStore.load(in: transaction)[info.schema.className] == nil {
                try SchemaStore.add(info.schema, in: transaction)
            }
        }
        let writer = try transaction.table(info.tableName)
        info.writer = writer
        info.writerSerial = transactionSerial
        info.nextPendingKey = 0
        return writer
    }

    /// The table named `name` as this handle reads it now; nil if there is none.
    func readTable(named name: String) -> (any TableReading)? {
        if let transaction { return transaction.tableIfPresent(name) }
        return readOrStop { try snapshot() }.tableIfPresent(name)
    }

    // MARK: Accessors

    /// A managed accessor of row `key` of `type`, whose row is read when a property needs it.
    func accessor<T: Object>(of type: T.Type, key: UInt64, info: ClassInfo? = nil) -> T {
        guard let info else { return accessor(of: type, key: key, info: classInfoOrStop(for: type)) }
        let object = T()
        object._manage(realm: self, key: key, info: info)
        info.writeSlots(into: object)
        return object
    }

    /// A managed accessor of row `key` of `type` with its row already read, at `range` of
    /// `buffer` (a buffer of this realm): what iterating `Results` makes.
    func accessor<T: Object>(of type: T.Type, key: UInt64, row range: Range<Int>, of buffer: RowBuffer, info: ClassInfo) -> T {
        let object = T()
        object._manage(key: key, info: info, row: range, of: buffer, stamp: stamp)
        info.writeSlots(into: object)
        return object
    }

    func isInvalidated(_ managed: ManagedObjectState) -> Bool {
        if managed.isInvalidated { return true }
        return !(readOrStop { try readTable(managed.info)?.contains(managed.key) } ?? false)
    }

    /// Makes sure the object's row is the one this handle reads now, reading it again if not.
    private func refreshRow(_ managed: ManagedObjectState) {
        if managed.hasCurrentRow { return }
        require(!managed.isInvalidated, "this \(managed.info.schema.className) was deleted, added in a write that was cancelled, or read before its realm was invalidated; check isInvalidated before using it")
        let buffer = RowBuffer.make(realm: self, tableName: managed.info.schema.className, capacity: 64)
        guard let range = readOrStop({ try readTable(managed.info)?.withRow(managed.key, buffer.append) }) ?? nil else {
            stop("this \(managed.info.schema.className) was deleted from its realm; check isInvalidated before using it")
        }
        managed.setRow(range, of: buffer, stamp: stamp)
    }

    /// The object's row as this handle reads it now.
    func currentRow(_ managed: ManagedObjectState) -> [Value] {
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
        let recorder = T()
        let info = classInfoOrStop(for: type)
        recorder._manage(realm: self, key: 0, info: info)
        recorder.__isRecorder = true
        info.writeSlots(into: recorder, recorder: true)
        recordedProperty = ""
        _ = recorder[keyPath: keyPath]
        let name = recordedProperty
        guard !name.isEmpty else {
            stop("\(keyPath) is not a @Persisted property of '\(type.className())'; queries can only use persisted properties")
        }
        return name
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
    func column(_ column: Int, of managed: ManagedObjectState) -> Value {
        checkThread()
        refreshRow(managed)
        return RowBuffer.column(column, of: managed.row, cursor: &managed.object.__rowCursor, table: managed.info.schema.className)
    }

    /// Sets one stored column of a managed object; needs a write transaction.
    func setColumn(_ column: Int, of managed: ManagedObjectState, to value: Value) {
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

    /// Sets a property that is not a value column (a list): the general path of
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
    /// the primary key fails the transaction.
    func write(stored: Value, column: Int, of managed: ManagedObjectState) {
        if managed.info.listTables[column] != nil {
            var elements: [Value] = []
            if case .list(let given) = stored { elements = given }
            changeList(of: managed, column: column) { table, count in
                try ListStore.replace(with: elements, in: table, owner: managed.key, count: count)
                return elements.count
            }
            return
        }
        if managed.info.primaryKeyColumn == column, !self.column(column, of: managed).isIdentical(to: stored) {
            let name = managed.info.schema.storedProperties[column].name
            stop("Primary key can't be changed after an object is inserted: '\(managed.info.schema.className).\(name)' identifies the object; delete it and add a new one with the new key instead")
        }
        setColumn(column, of: managed, to: stored)
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

    // MARK: Adding

    /// Adds `object`, and the unmanaged objects it links to, to the realm.
    ///
    /// Errors (a duplicate primary key, say) do not throw here, as in RealmSwift: they fail the
    /// write transaction, whose `commitWrite()` or `write` throws them and stores nothing.
    ///
    /// - Important: Call inside a write transaction. An object managed by another realm cannot
    ///   be added.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        checkThread()
        require(isWriting, "add objects inside a write transaction: realm.write { realm.add(object) }")
        if update != .error, object.managed == nil { requirePrimaryKey(classInfoOrStop(for: type(of: object)), for: update) }
        addPolicy = update
        defer { addPolicy = .error }
        _ = keyAddingIfNeeded(object)
    }

    /// Stops unless `info`'s class has a primary key: updating finds the object to update by
    /// it, and without one `.modified` or `.all` would insert silently (RealmSwift refuses too).
    private func requirePrimaryKey(_ info: ClassInfo, for update: UpdatePolicy) {
        require(info.schema.primaryKeyProperty != nil, "'\(info.schema.className)' has no primary key, so its objects cannot be added or created with update: .\(update); use update: .error (the default), or give the class a primary key")
    }

    /// Adds every object of `objects`.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// The key of `object` in this realm, adding it (and what it links to) if it is unmanaged.
    func keyAddingIfNeeded(_ object: Object) -> UInt64 {
        if let managed = object.managed {
            require(managed.realm === self, "this object is managed by another Realm instance; read it through this realm instead")
            require(!managed.isInvalidated, "this object was deleted, or added in a write that was cancelled, so it cannot be added or linked to; add a new unmanaged object instead")
            return managed.key
        }
        guard transactionForChange("linking an unmanaged object adds it, which needs a write transaction") != nil else { return 0 }
        do {
            return try withAddTarget(for: type(of: object)) { info, table in try add(unmanaged: object, info: info, table: table) }
        } catch {
            fail(error)
            return object.managed?.key ?? 0
        }
    }

    /// Calls `body` with the class info of `type` and its table in the write transaction. Both
    /// are borrowed, not retained, when the last add was of the same class in the same
    /// transaction (a bulk add): the realm keeps every class info, and the class info keeps its
    /// table writer for the transaction. Counting references to the class info, the table and
    /// the transaction was a twentieth of `BatchWrite`'s adds.
    @inline(__always)
    private func withAddTarget<Result>(for type: Object.Type, _ body: (ClassInfo, TableWriter) throws -> Result) throws -> Result {
        if let target = addTarget, target.type == ObjectIdentifier(type), target.transactionSerial == transactionSerial {
            return try target.info._withUnsafeGuaranteedRef { info in
                try target.table._withUnsafeGuaranteedRef { table in try body(info, table) }
            }
        }
        let info = classInfoOrStop(for: type)
        let table = try writeTable(info, in: transaction!)
        addTarget = AddTarget(type: ObjectIdentifier(type), info: .passUnretained(info), table: .passUnretained(table), transactionSerial: transactionSerial)
        return try body(info, table)
    }

    /// Adds `object`, unmanaged, to `table` of `info`'s class, or with `.modified` or `.all`
    /// updates the object of its primary key; returns its key.
    private func add(unmanaged object: Object, info: ClassInfo, table: TableWriter) throws -> UInt64 {
        if addPolicy != .error, let primary = info.schema.primaryKeyProperty, let column = info.columns[primary.name] {
            let field = info.storageFields(of: object)[column]
            let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            let primaryKey = field.storageValue(in: base, realm: self)
            if let existing = try table.firstKey(where: column, equals: primaryKey) {
                // Managed before its links are converted, so a cycle back to it ends here.
                object._manage(realm: self, key: existing, info: info)
                info.writeSlots(into: object)
                var values = unmanagedValues(of: object, info: info)
                let oldRow = try table.row(existing)
                try storeLists(of: info, key: existing, in: &values, replacing: oldRow) { try table.update(existing, to: $0) }
                bumpStamp()
                return existing
            }
        }
        // Take the key before converting links, so that a cycle back to this object (or
        // another object of this class added on the way) finds its key.
        let key = max(table.nextKey, info.nextPendingKey)
        info.nextPendingKey = key + 1
        object._manage(realm: self, key: key, info: info)
        info.writeSlots(into: object)
        if additions == nil { additions = WriteAdditions() }
        object.__addedIn = additions
        var values = unmanagedValues(of: object, info: info)
        try storeLists(of: info, key: key, in: &values, replacing: nil) { try table.insert($0, forKey: key) }
        recycle(&values)
        bumpStamp()
        return key
    }

    /// Creates an object of `type` from `value` (a dictionary by property name, an array in
    /// property order, or an object) and adds it, returning the managed object.
    ///
    /// Objects `value` holds are copied, as in RealmSwift: an unmanaged one stays unmanaged,
    /// one of another realm is copied into this one, and one of this realm is linked to.
    /// A property `value` does not give takes its default, as in `T()`: the model's initial
    /// value, or the type's zero. `nil` or `NSNull()` stands for nil. With `.modified` or `.all`
    /// and a primary key already in the realm, only the properties `value` gives are updated;
    /// the others keep their values.
    ///
    /// Errors (an unknown property, a value of the wrong type, a duplicate primary key) fail the
    /// write transaction: `commitWrite()` or `write` throws them and stores nothing.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        checkThread()
        require(isWriting, "create objects inside a write transaction: realm.write { realm.create(...) }")
        let info = classInfoOrStop(for: type)
        if update != .error { requirePrimaryKey(info, for: update) }
        if update != .error, let primary = info.schema.primaryKeyProperty, let column = info.columns[primary.name],
           let given = Self.givenValues(value, schema: info.schema), let key = given[primary.name] ?? nil,
           let existing = existingObject(of: type, info: info, primaryKeyColumn: column, given: key) {
            var copies: [Object: Object] = [:]
            for (name, given) in given where name != primary.name {
                let item = copyingForeignObjects(in: given, copies: &copies)
                guard info.schema[name] != nil, let storage = existing.persistedType(of: name) else {
                    fail(RealmError(code: .invalidValue, message: "'\(info.schema.className)' has no property '\(name)'"))
                    continue
                }
                guard storage.accepts(item) else {
                    fail(RealmError(code: .invalidValue, message: "property '\(name)' of '\(info.schema.className)' cannot hold \(item.map { "\(Swift.type(of: $0))" } ?? "nil")"))
                    continue
                }
                storage.write(item, to: self, managed: existing.managed!, named: name)
            }
            return existing
        }
        let object = T()
        if let problem = object.assign(value) {
            fail(RealmError(code: .invalidValue, message: problem))
            return object
        }
        var copies: [Object: Object] = [:]
        if let original = value as? Object { copies[original] = object }
        copyLinkedObjects(of: object, schema: info.schema, copies: &copies)
        add(object, update: update)
        return object
    }

    /// The stored object whose primary key equals `given` once converted to the key's type
    /// (so that `["id": 1]` finds the object whatever type the literal was inferred as).
    private func existingObject<T: Object>(of type: T.Type, info: ClassInfo, primaryKeyColumn column: Int, given: Any) -> T? {
        let probe = T()
        guard probe.assign([info.schema.storedProperties[column].name: given]) == nil else { return nil }
        let field = info.storageFields(of: probe)[column]
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(probe).toOpaque())
        let key = field.storageValue(in: base, realm: self)
        guard let table = readTable(info), let found = readOrStop({ try table.firstKey(where: column, equals: key) }) else {
            return nil
        }
        return accessor(of: type, key: found, info: info)
    }

    /// The values `value` gives, by property name (nil if it is not a dictionary or an array).
    private static func givenValues(_ value: Any, schema: ObjectSchema) -> [String: Any?]? {
        if let dictionary = value as? [String: Any?] { return dictionary }
        if let array = value as? [Any?] {
            return Dictionary(uniqueKeysWithValues: zip(schema.storedProperties.map(\.name), array))
        }
        return nil
    }

    /// The stored values of an unmanaged object, in column order, read straight from its
    /// `@Persisted` storage (reflection per object would cost more than the insert).
    private func unmanagedValues(of object: Object, info: ClassInfo) -> [Value] {
        // The array of the last add, taken out while in use: converting a link adds the object
        // it links to first, which takes an array of its own.
        var values: [Value] = []
        swap(&values, &rowScratch)
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let fields = info.storageFields(of: object)
        // The last add's values are overwritten in place (an object of the same class, the usual
        // case): emptying the array destroyed each through the runtime's generic array
        // destruction, a call per value, a twentieth of an add.
        if values.count != fields.count {
            values.removeAll(keepingCapacity: true)
            values.append(contentsOf: repeatElement(.null, count: fields.count))
        }
        values.withUnsafeMutableBufferPointer { values in
            for index in fields.indices {
                values[index] = fields[index].storageValue(in: base, realm: self)
            }
        }
        return values
    }

    /// Keeps `values`' storage for the next add (see `rowScratch`), values and all: the next
    /// add of the class overwrites them.
    private func recycle(_ values: inout [Value]) {
        swap(&rowScratch, &values)
    }

    // MARK: Reading objects

    /// Every object of `type`, in insertion order.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        checkThread()
        return Results(realm: self, info: classInfoOrStop(for: type))
    }

    /// The object of `type` whose primary key is `key`, or nil if there is none.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let key = key as? _Persistable else {
            let info = classInfoOrStop(for: type)
            stop("\(KeyType.self) cannot be the primary key of '\(info.schema.className)', which is \(info.schema.primaryKeyProperty?.type.rawValue ?? "not declared")")
        }
        return object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self))
    }

    /// The object of `type` whose primary key is `key`: the overload for keys whose type is
    /// known to be storable, with no dynamic cast.
    public func object<Element: Object, KeyType: _Persistable>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        object(ofType: type, forStoredPrimaryKey: key._toStorage(realm: self))
    }

    private func object<Element: Object>(ofType type: Element.Type, forStoredPrimaryKey stored: _StorageValue) -> Element? {
        checkThread()
        let info = classInfoOrStop(for: type)
        guard let column = info.primaryKeyColumn else {
            stop("'\(info.schema.className)' has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        guard let table = readTable(info), let found = readOrStop({ try table.firstKey(where: column, equals: stored.value) }) else {
            return nil
        }
        return accessor(of: type, key: found, info: info)
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
