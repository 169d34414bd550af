import StorageEngine

/// Links between objects: finding the objects that link to one (through the backlink indexes),
/// and deleting objects, which unlinks them from every link and list.
extension Realm {
    /// The keys of the objects linking to row `key` of `className` through `property`'s origin,
    /// once per link (an object whose list holds it twice is there twice), found through the
    /// backlink index.
    func linkingKeys(to key: UInt64, of className: String, through property: Property) -> [UInt64] {
        guard let originClass = property.objectClassName, let originName = property.linkOriginPropertyName,
              let origin = objectSchemas[originClass],
              let column = origin.storedProperties.firstIndex(where: { $0.name == originName }) else { return [] }
        return keys(of: origin, linkingTo: key, throughColumn: column)
    }

    /// The keys of the objects of `origin` whose link or list in `column` holds object `key`,
    /// once per link, through the backlink index of the column or of the list's element table.
    func keys(of origin: ObjectSchema, linkingTo key: UInt64, throughColumn column: Int) -> [UInt64] {
        let target = RowValue.objectKey(key)
        let property = origin.storedProperties[column]
        if property.isCollection {
            guard let table = readTable(named: ListStore.tableName(forClass: origin.className, property: property)) else { return [] }
            return readOrStop { try ListStore.occurrences(of: target, in: table) }.map(\.owner)
        }
        guard let table = readTable(named: SchemaStore.tableName(forClass: origin.className)) else { return [] }
        return readOrStop { try table.keys(where: column, equals: target) }
    }

    // MARK: Deleting

    /// Deletes `object`, removing it from every list and setting every link to it to nil; the
    /// embedded objects it holds are deleted with it.
    ///
    /// - Important: Call inside a write transaction, with an object managed by this realm
    ///   that is not deleted already (`isInvalidated` tells); deleting it twice stops with a
    ///   message, as in Realm.
    ///
    /// - Parameter object: An object managed by this realm.
    public func delete(_ object: Object) {
        delete(object, unlessDeleted: false)
    }

    /// Deletes `object`; one already deleted is skipped when `unlessDeleted` (a sequence that
    /// holds an object twice) and stops the program otherwise.
    private func delete(_ object: Object, unlessDeleted: Bool) {
        checkThread()
        guard let transaction = transactionForChange("delete objects inside a write transaction: realm.write { realm.delete(object) }") else { return }
        guard let managed = object.managed, managed.realm === self else {
            stop("only objects managed by this realm can be deleted; this one is \(object.managed == nil ? "unmanaged" : "managed by another Realm instance")")
        }
        if isInvalidated(managed) {
            require(unlessDeleted, "this \(managed.info.schema.className) was deleted from its realm or invalidated already; check isInvalidated before deleting it")
            return
        }
        do {
            let table = try writeTable(managed.info, in: transaction)
            if let row = try table.row(managed.key) {
                try deleteOwned(by: managed.info.schema, key: managed.key, row: row, in: transaction)
                try deleteLists(of: managed.info, key: managed.key, row: row, in: transaction)
            }
            try table.delete(managed.key)
            try unlink(managed.key, of: managed.info.schema.className, in: transaction)
        } catch {
            fail(error)
        }
        managed.isInvalidated = true
        bumpStamp()
    }

    /// Deletes every object of `objects`.
    ///
    /// - Parameter objects: Objects managed by this realm.
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        if let results = objects as? Results<S.Element> {
            delete(results)
            return
        }
        // A list may hold an object twice: the second is deleted already by then.
        for object in Array(objects) { delete(object, unlessDeleted: true) }
    }

    /// Deletes every object of `results`, unlinking them. All objects of a class go at once;
    /// filtered, sorted or list-based results one object at a time.
    ///
    /// - Parameter results: Results of this realm.
    public func delete<Element: Object>(_ results: Results<Element>) {
        checkThread()
        guard let transaction = transactionForChange("delete objects inside a write transaction: realm.write { realm.delete(objects) }") else { return }
        // One at a time too when the objects hold embedded objects, which go with them.
        guard results.isWholeClass, embeddedColumns(of: results.info.schema).isEmpty else {
            // The keys first: deleting changes what the results hold.
            for key in Set(results.keys).sorted() { delete(accessor(of: Element.self, key: key, info: results.info), unlessDeleted: true) }
            return
        }
        guard let table = transaction.tableIfPresent(results.info.tableName) else { return }
        do {
            try table.deleteAll()
            for listTable in results.info.listTables.values { try transaction.tableIfPresent(listTable)?.deleteAll() }
            try unlinkAll(of: results.info.schema.className, in: transaction)
        } catch {
            fail(error)
        }
        bumpStamp()
    }

    /// Deletes every object of every class.
    public func deleteAll() {
        checkThread()
        guard let transaction = transactionForChange("deleteAll() needs a write transaction") else { return }
        do {
            for schema in objectSchemas.values {
                try transaction.tableIfPresent(SchemaStore.tableName(forClass: schema.className))?.deleteAll()
                for property in schema.storedProperties where property.isCollection {
                    try transaction.tableIfPresent(ListStore.tableName(forClass: schema.className, property: property))?.deleteAll()
                }
            }
        } catch {
            fail(error)
        }
        bumpStamp()
    }

    /// Sets every link to an object of `className` to nil, empties every list and set of them
    /// and makes every map's values nil (when every object of the class is deleted).
    private func unlinkAll(of className: String, in transaction: WriteTransaction) throws {
        for (schema, column, property) in links(to: className) {
            guard let table = transaction.tableIfPresent(SchemaStore.tableName(forClass: schema.className)) else { continue }
            if property.isMap {
                // A map keeps its keys; their values become nil.
                guard let entries = transaction.tableIfPresent(ListStore.tableName(forClass: schema.className, property: property)) else { continue }
                for key in try entries.keys() { try MapStore.setValue(.null, ofEntry: key, in: entries) }
            } else if property.isCollection {
                guard let elements = transaction.tableIfPresent(ListStore.tableName(forClass: schema.className, property: property)) else { continue }
                var owners: Set<UInt64> = []
                try elements.scan { key, _ in
                    owners.insert(ListStore.owner(ofKey: key))
                    return true
                }
                try elements.deleteAll()
                for owner in owners { try table.set(owner, column: column, to: .int(0)) }
            } else {
                var linking: [UInt64] = []
                try table.scan { key, row in
                    if case .objectKey = try row.column(column) { linking.append(key) }
                    return true
                }
                for key in linking { try table.set(key, column: column, to: .null) }
            }
        }
    }

    /// Sets every link to row `key` of `className` to nil, removes it from every list and set,
    /// and makes it nil in every map, found through the backlink indexes.
    func unlink(_ key: UInt64, of className: String, in transaction: WriteTransaction) throws {
        let target = RowValue.objectKey(key)
        for (schema, column, property) in links(to: className) {
            guard let table = transaction.tableIfPresent(SchemaStore.tableName(forClass: schema.className)) else { continue }
            if property.isCollection {
                guard let elements = transaction.tableIfPresent(ListStore.tableName(forClass: schema.className, property: property)) else { continue }
                // Positions from the last, so that removing one does not move the next.
                let found = try ListStore.occurrences(of: target, in: elements).sorted { ($0.owner, $0.position) > ($1.owner, $1.position) }
                for (owner, position) in found {
                    if property.isMap {
                        // A map keeps the key; its value becomes nil.
                        try MapStore.setValue(.null, ofEntry: ListStore.key(owner: owner, position: position), in: elements)
                        continue
                    }
                    guard let count = try table.value(owner, column: column).map(ListStore.count) else { continue }
                    if property.isSet {
                        try SetStore.removeElement(at: position, from: elements, owner: owner, count: count)
                    } else {
                        try ListStore.remove(at: position, in: elements, owner: owner, count: count)
                    }
                    try table.set(owner, column: column, to: .int(Int64(count - 1)))
                }
            } else {
                for linking in try table.keys(where: column, equals: target) {
                    try table.set(linking, column: column, to: .null)
                }
            }
        }
    }

    /// Every stored property, of any class, that links to `className` (a link or a list).
    private func links(to className: String) -> [(schema: ObjectSchema, column: Int, property: Property)] {
        objectSchemas.values.flatMap { schema in
            schema.storedProperties.enumerated()
                .filter { $0.element.objectClassName == className }
                .map { (schema, $0.offset, $0.element) }
        }
    }
}
