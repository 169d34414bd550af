import StorageEngine

extension Realm {
    /// Adds `object`, and the unmanaged objects it links to, to the realm.
    ///
    /// Errors (a duplicate primary key, say) do not throw here, as in RealmSwift: they fail the
    /// write transaction, whose `commitWrite()` or `write` throws them and stores nothing.
    ///
    /// - Important: Call inside a write transaction. An object managed by another realm cannot
    ///   be added.
    ///
    /// - Parameters:
    ///   - object: An unmanaged object, or one already managed by this realm.
    ///   - update: What to do when an object with its primary key is already stored.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        checkThread()
        require(isWriting, "add objects inside a write transaction: realm.write { realm.add(object) }")
        if object.managed == nil, addScratch.notEmbedded != ObjectIdentifier(type(of: object)) {
            requireNotEmbedded(type(of: object), "added")
            addScratch.notEmbedded = ObjectIdentifier(type(of: object))
        }
        if update != .error, object.managed == nil { requirePrimaryKey(classInfoOrStop(for: type(of: object)), for: update) }
        addScratch.policy = update
        defer { addScratch.policy = .error }
        _ = keyAddingIfNeeded(object)
    }

    /// Stops unless `info`'s class has a primary key: updating finds the object to update by
    /// it, and without one `.modified` or `.all` would insert silently (RealmSwift refuses too).
    private func requirePrimaryKey(_ info: ClassInfo, for update: UpdatePolicy) {
        require(info.schema.primaryKeyProperty != nil, "'\(info.schema.className)' has no primary key, so its objects cannot be added or created with update: .\(update); use update: .error (the default), or give the class a primary key")
    }

    /// Adds every object of `objects`.
    ///
    /// - Parameters:
    ///   - objects: The objects to add, in order.
    ///   - update: What to do when an object with one's primary key is already stored.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// The key of `object` in this realm, adding it (and what it links to) if it is unmanaged.
    func keyAddingIfNeeded(_ object: Object) -> UInt64 {
        if let managed = object.managed {
            // An `oldObject` of a migration (or an object it links to) stands for the same
            // object in the new version.
            if managed.realm !== self, let key = migratedKey(of: managed) { return key }
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
    /// table writer for the transaction, so a bulk add counts no references to them per object.
    @inline(__always)
    private func withAddTarget<Result>(for type: Object.Type, _ body: (ClassInfo, TableWriter) throws -> Result) throws -> Result {
        if let target = addScratch.target, target.type == ObjectIdentifier(type), target.transactionSerial == transactionSerial {
            return try target.info._withUnsafeGuaranteedRef { info in
                try target.table._withUnsafeGuaranteedRef { table in try body(info, table) }
            }
        }
        let info = classInfoOrStop(for: type)
        let table = try writeTable(info, in: transaction!)
        addScratch.target = AddScratch.Target(type: ObjectIdentifier(type), info: .passUnretained(info), table: .passUnretained(table), transactionSerial: transactionSerial)
        return try body(info, table)
    }

    /// Adds `object`, unmanaged, to `table` of `info`'s class, or with `.modified` or `.all`
    /// updates the object of its primary key; returns its key.
    private func add(unmanaged object: Object, info: ClassInfo, table: TableWriter) throws -> UInt64 {
        if addScratch.policy != .error, let primary = info.schema.primaryKeyProperty, let column = info.columns[primary.name] {
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
        let key = newKey(for: object, info: info, next: max(table.nextKey, info.nextPendingKey))
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

    /// The row key a new `object` takes: the next one free, or for an `Int` primary key the one
    /// it gives if that is a little past the next (`PrimaryKeyRowKey`).
    private func newKey(for object: Object, info: ClassInfo, next: UInt64) -> UInt64 {
        guard info.primaryKeyGivesRowKeys, let column = info.primaryKeyColumn else { return next }
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return PrimaryKeyRowKey.newKey(for: info.storageFields(of: object)[column].storageValue(in: base, realm: self), next: next)
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
    ///
    /// - Parameters:
    ///   - type: The model class.
    ///   - value: A dictionary by property name, an array in declaration order, or an object.
    ///   - update: What to do when an object with the given primary key is already stored.
    /// - Returns: The managed object, new or updated.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        checkThread()
        require(isWriting, "create objects inside a write transaction: realm.write { realm.create(...) }")
        requireNotEmbedded(type, "created")
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
    private func unmanagedValues(of object: Object, info: ClassInfo) -> [RowValue] {
        // The array of the last add, taken out while in use: converting a link adds the object
        // it links to first, which takes an array of its own.
        var values: [RowValue] = []
        swap(&values, &addScratch.values)
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let fields = info.storageFields(of: object)
        // The last add's values are overwritten in place (an object of the same class, the usual
        // case): emptying the array would destroy each through the runtime's generic array
        // destruction, a call per value.
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

    /// Keeps `values`' storage for the next add (see `AddScratch.values`), values and all: the next
    /// add of the class overwrites them.
    private func recycle(_ values: inout [RowValue]) {
        swap(&addScratch.values, &values)
    }
}
