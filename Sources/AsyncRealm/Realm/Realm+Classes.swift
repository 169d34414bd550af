import StorageEngine

import StorageEngine

/// The realm's view of each model class (`ClassInfo`) and the tables of its objects.
extension Realm {

    /// The realm's view of model class `type`, registering it (and the classes it links to) the
    /// first time it is used.
    func classInfo(for type: Object.Type) throws -> ClassInfo {
        // Keyed by the type's identity: computing a class name (`String(describing:)`) on every
        // accessor would cost more than reading the row.
        if let last = lastClassInfo(of: type) { return last.takeUnretainedValue() }
        if let info = classInfos[ObjectIdentifier(type)] {
            lastClassInfo = .passUnretained(info)
            return info
        }
        guard type != DynamicObject.self else {
            // It is no model: registered, it made a class of that name with no properties.
            throw RealmError(code: .invalidSchema, message: "DynamicObject is no model class; read objects by class name with realm.dynamicObjects(\"ClassName\") or realm.dynamicObject(ofType:forPrimaryKey:)")
        }
        let name = type.className()
        try register(SchemaDiscovery.schema(for: [type]))
        let info = ClassInfo(schema: objectSchemas[name]!, type: type)
        classInfos[ObjectIdentifier(type)] = info
        return info
    }

    @inline(__always)
    func classInfoOrStop(for type: Object.Type) -> ClassInfo {
        unretainedClassInfoOrStop(for: type).takeUnretainedValue()
    }

    /// `classInfoOrStop(for:)`, not counted, for a caller that keeps the realm alive as long as
    /// it keeps the class info (the realm keeps it, see `retiredClassInfos`).
    @inline(__always)
    func unretainedClassInfoOrStop(for type: Object.Type) -> Unmanaged<ClassInfo> {
        if let last = lastClassInfo(of: type) { return last }
        return .passUnretained(registeredClassInfoOrStop(for: type))
    }

    /// The class info found last, if it is `type`'s.
    @inline(__always)
    private func lastClassInfo(of type: Object.Type) -> Unmanaged<ClassInfo>? {
        guard let last = lastClassInfo, last._withUnsafeGuaranteedRef({ $0.type == type }) else { return nil }
        return last
    }

    /// `classInfoOrStop` past its check of the class info found last.
    private func registeredClassInfoOrStop(for type: Object.Type) -> ClassInfo {
        do {
            return try classInfo(for: type)
        } catch {
            stop("cannot use '\(type.className())' with this realm: \(error)")
        }
    }

    /// Forgets the class infos made before a migration changed the schema, keeping them alive
    /// (`retiredClassInfos`): an object the migration block kept still points at its own.
    func retireClassInfos() {
        retiredClassInfos += classInfos.values
        retiredClassInfos += dynamicClassInfos.values
        classInfos = [:]
        dynamicClassInfos = [:]
        lastClassInfo = nil
    }

    /// The table of `info`'s class as this handle reads it now; nil if it has no table yet.
    /// Kept in `info` until the realm changes, which saves finding it by name on every read.
    func readTable(_ info: ClassInfo) -> (any TableReading)? {
        cachedTable(info)?.reading
    }

    /// `readTable(_:)` as `info` keeps it, which a caller reads in place through `reading`.
    @inline(__always)
    func cachedTable(_ info: ClassInfo) -> ClassInfo.ReadTable? {
        if info.tableStamp == stamp { return info.table }
        return readCachedTable(info)
    }

    /// `cachedTable(info)`, not counted: valid until the realm changes or `info` reads its
    /// table again, for a caller that borrows it (`Unmanaged._withUnsafeGuaranteedRef`).
    @inline(__always)
    func borrowedTable(_ info: ClassInfo) -> Unmanaged<ClassInfo.ReadTable>? {
        if info.tableStamp != stamp { _ = readCachedTable(info) }
        return info.unretainedTable
    }

    /// `cachedTable` when the realm has changed since `info` kept its table.
    private func readCachedTable(_ info: ClassInfo) -> ClassInfo.ReadTable? {
        let table = readTable(named: info.tableName).map(ClassInfo.ReadTable.init)
        info.table = table
        info.tableRowCount = table?.reading.count ?? 0
        info.tableStamp = stamp
        return table
    }

    /// How many objects of `info`'s class this handle reads now: the count of a whole class
    /// with no copy of its table (an existential box too big to hold inline, allocated and
    /// freed on every `realm.objects(T.self).count`).
    func rowCount(_ info: ClassInfo) -> Int {
        if info.tableStamp != stamp { _ = cachedTable(info) }
        return info.tableRowCount
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
}
