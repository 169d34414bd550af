import StorageEngine

/// Reading and changing the lists and sets of managed objects (stored as `ListStore` describes).
extension Realm {
    /// The number of elements of list column `column` of a managed object.
    func listCount(of managed: ManagedObjectState, column: Int) -> Int {
        ListStore.count(self.column(column, of: managed))
    }

    /// Element `position` of list column `column` of a managed object.
    func listElement(of managed: ManagedObjectState, column: Int, at position: Int) -> RowValue {
        let count = listCount(of: managed, column: column)
        require(position >= 0 && position < count, "index \(position) is out of bounds for the \(ManagedListLocation(owner: managed, column: column).noun), which has \(count) elements")
        guard let table = readTable(named: managed.info.listTables[column]!) else { stopCorrupted(managed, column) }
        do {
            return try ListStore.element(in: table, owner: managed.key, position: position)
        } catch {
            stopCorrupted(managed, column, error)
        }
    }

    /// Every element of list column `column` of a managed object, in order.
    func listElements(of managed: ManagedObjectState, column: Int) -> [RowValue] {
        let count = listCount(of: managed, column: column)
        guard count > 0 else { return [] }
        guard let table = readTable(named: managed.info.listTables[column]!) else { stopCorrupted(managed, column) }
        let elements: [RowValue]
        do {
            elements = try ListStore.elements(in: table, owner: managed.key, count: count)
        } catch {
            stopCorrupted(managed, column, error)
        }
        guard elements.count == count else { stopCorrupted(managed, column) }
        return elements
    }

    /// Reads list or set column `column` of a managed object with `body`, given the element
    /// table and the collection's length.
    func readList<T>(of managed: ManagedObjectState, column: Int, _ body: (any TableReading, Int) throws -> T) -> T {
        let count = listCount(of: managed, column: column)
        guard let table = readTable(named: managed.info.listTables[column]!) else { stopCorrupted(managed, column) }
        do {
            return try body(table, count)
        } catch {
            stopCorrupted(managed, column, error)
        }
    }

    /// Applies `change` to list column `column` of a managed object inside the write
    /// transaction: `change` gets the element table and the list's length and returns the new
    /// length, which is stored in the owner's row. An error fails the transaction.
    func changeList(of managed: ManagedObjectState, column: Int, _ change: (TableWriter, Int) throws -> Int) {
        checkThread()
        guard let transaction = transactionForChange("cannot change the managed \(ManagedListLocation(owner: managed, column: column).noun) outside a write transaction; make the change inside realm.write { }") else { return }
        let count = listCount(of: managed, column: column)
        let property = managed.info.schema.storedProperties[column]
        do {
            let table = transaction.createTable(managed.info.listTables[column]!)
            // The embedded objects the collection lets go of are deleted.
            let held = holdsEmbedded(property) ? try ListStore.elements(in: table, owner: managed.key, count: count) : nil
            let newCount = try change(table, count)
            try writeTable(managed.info, in: transaction).set(managed.key, column: column, to: .int(Int64(newCount)))
            if let held {
                try deleteReleased(property, old: held, new: ListStore.elements(in: table, owner: managed.key, count: newCount), in: transaction)
            }
        } catch {
            fail(error)
        }
        bumpStamp()
    }

    /// Stores the lists, sets and maps of a row just inserted or updated under `key`: `values`
    /// holds each collection column's stored value (see `CollectionContents`), which is written
    /// to the element table and replaced in `values` by the count the row stores. `oldRow` is
    /// the row being updated, if any.
    func storeLists(of info: ClassInfo, key: UInt64, in values: inout [RowValue], replacing oldRow: [RowValue]?, _ write: ([RowValue]) throws -> Void) throws {
        guard !info.listTables.isEmpty, let transaction else {
            try write(values)
            if let oldRow, let transaction { try deleteReleasedLinks(of: info.schema, old: oldRow, new: values, in: transaction) }
            return
        }
        var collections: [(column: Int, contents: CollectionContents)] = []
        for column in info.listTables.keys.sorted() where column < values.count {
            let contents = CollectionContents(values[column], of: info.schema.storedProperties[column])
            collections.append((column, contents))
            values[column] = .int(Int64(contents.count))
        }
        try write(values)
        for (column, contents) in collections {
            let table = transaction.createTable(info.listTables[column]!)
            let oldCount = oldRow.map { column < $0.count ? ListStore.count($0[column]) : 0 } ?? 0
            let property = info.schema.storedProperties[column]
            let held = oldCount > 0 && holdsEmbedded(property) ? try ListStore.elements(in: table, owner: key, count: oldCount) : nil
            try contents.store(in: table, owner: key, replacing: oldCount)
            if let held {
                try deleteReleased(property, old: held, new: ListStore.elements(in: table, owner: key, count: contents.count), in: transaction)
            }
        }
        if let oldRow { try deleteReleasedLinks(of: info.schema, old: oldRow, new: values, in: transaction) }
    }

    /// Deletes the elements of every list of row `key` of `info`'s class, ahead of deleting it.
    func deleteLists(of info: ClassInfo, key: UInt64, row: [RowValue], in transaction: WriteTransaction) throws {
        for (column, tableName) in info.listTables where column < row.count {
            guard let table = transaction.tableIfPresent(tableName) else { continue }
            try ListStore.removeAll(in: table, owner: key, count: ListStore.count(row[column]))
        }
    }

    /// Stops for damage to the elements of list column `column` (see `stopOnDamage`): `error`
    /// reading them, or without one, elements that do not match the list's length.
    private func stopCorrupted(_ managed: ManagedObjectState, _ column: Int, _ error: (any Swift.Error)? = nil) -> Never {
        let noun = ManagedListLocation(owner: managed, column: column).noun
        stopOnDamage(" (the elements of \(noun)): " + (error.map(damageDescription) ?? "they do not match its length"))
    }
}
