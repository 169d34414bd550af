import StorageEngine

/// The life of embedded objects (see `EmbeddedObject`): each has exactly one parent, is added
/// with it, and is deleted with it or when the parent stops holding it.
extension Realm {
    /// Whether `property` is a link, list or map of embedded objects.
    func holdsEmbedded(_ property: Property) -> Bool {
        property.type == .object && property.objectClassName.flatMap { objectSchemas[$0] }?.isEmbedded == true
    }

    /// The columns of `schema` that hold embedded objects.
    func embeddedColumns(of schema: ObjectSchema) -> [Int] {
        schema.storedProperties.indices.filter { holdsEmbedded(schema.storedProperties[$0]) }
    }

    /// Stops when `type` is embedded: `what` (adding, creating) is for objects with a life of
    /// their own.
    func requireNotEmbedded(_ type: Object.Type, _ what: String) {
        require(!(type is EmbeddedObject.Type), "'\(type.className())' is an EmbeddedObject, which cannot be \(what) on its own; assign it to a property of the object that holds it (that adds it)")
    }

    /// Fails the write transaction when `object`, a managed embedded object, has a parent
    /// already: it cannot be held by a second one. Returns whether it may be linked.
    func checkEmbeddedUnowned(_ object: Object) -> Bool {
        guard let managed = object.managed, managed.info.schema.isEmbedded else { return true }
        let className = managed.info.schema.className
        let parents = objectSchemas.values.reduce(0) { count, schema in
            count + schema.storedProperties.indices
                .filter { schema.storedProperties[$0].objectClassName == className }
                .reduce(0) { $0 + keys(of: schema, linkingTo: managed.key, throughColumn: $1).count }
        }
        guard parents == 0 else {
            fail(RealmError(code: .invalidValue, message: "this \(className) is an embedded object that another object holds already; an embedded object has exactly one parent, so assign a new \(className) (or an unmanaged copy) instead"))
            return false
        }
        return true
    }

    /// Deletes embedded object `key` of `className` and, first, the embedded objects it holds.
    func deleteEmbedded(_ key: UInt64, className: String, in transaction: WriteTransaction) throws {
        let info = dynamicClassInfo(className)
        guard let table = transaction.tableIfPresent(info.tableName), let row = try table.row(key) else { return }
        try deleteOwned(by: info.schema, key: key, row: row, in: transaction)
        try deleteLists(of: info, key: key, row: row, in: transaction)
        _ = try table.delete(key)
        try unlink(key, of: className, in: transaction)
    }

    /// Deletes the embedded objects that row `key` of `schema`'s class holds (ahead of deleting
    /// the row).
    func deleteOwned(by schema: ObjectSchema, key: UInt64, row: [RowValue], in transaction: WriteTransaction) throws {
        for column in embeddedColumns(of: schema) where column < row.count {
            let property = schema.storedProperties[column]
            for child in try embeddedKeys(in: property, column: column, of: schema.className, owner: key, row: row, in: transaction) {
                try deleteEmbedded(child, className: property.objectClassName!, in: transaction)
            }
        }
    }

    /// Deletes the embedded objects `old` holds that `new` does not: what a link, list or map
    /// of embedded objects let go of.
    func deleteReleased(_ property: Property, old: [RowValue], new: [RowValue], in transaction: WriteTransaction) throws {
        let kept = Set(new)
        for case .objectKey(let child) in Set(old) where !kept.contains(.objectKey(child)) {
            try deleteEmbedded(child, className: property.objectClassName!, in: transaction)
        }
    }

    /// Deletes the embedded objects the to-one links of `old` (a row being replaced by `new`)
    /// held and `new` does not.
    func deleteReleasedLinks(of schema: ObjectSchema, old: [RowValue], new: [RowValue], in transaction: WriteTransaction) throws {
        for column in embeddedColumns(of: schema) where !schema.storedProperties[column].isCollection && column < old.count && column < new.count {
            try deleteReleased(schema.storedProperties[column], old: [old[column]], new: [new[column]], in: transaction)
        }
    }

    /// The embedded objects that `property` (in `column`) of row `owner` of `className` holds.
    private func embeddedKeys(in property: Property, column: Int, of className: String, owner: UInt64, row: [RowValue], in transaction: WriteTransaction) throws -> [UInt64] {
        let values: [RowValue]
        if property.isCollection {
            guard let elements = transaction.tableIfPresent(ListStore.tableName(forClass: className, property: property)) else { return [] }
            values = try ListStore.elements(in: elements, owner: owner, count: ListStore.count(row[column]))
        } else {
            values = [row[column]]
        }
        return values.compactMap { if case .objectKey(let key) = $0 { key } else { nil } }
    }
}
