import StorageEngine

/// What a realm knows of one model class: its schema, its table and its columns.
@usableFromInline
final class ClassInfo {
    /// A table as a realm read it, kept in a class so that a read borrows it in place
    /// (`Realm.cachedTable`): returning the existential copied its box, with the value
    /// witnesses' calls and a count on each of its references, around every lookup.
    final class ReadTable {
        let reading: any TableReading
        init(_ reading: any TableReading) { self.reading = reading }
    }

    let schema: ObjectSchema
    let type: Object.Type
    let tableName: String
    /// Column of each stored property, by name.
    let columns: [String: Int]
    /// The class's table as the realm read it at `tableStamp` (see `Realm.readTable(_:)`).
    @exclusivity(unchecked) var table: ReadTable? {
        didSet { unretainedTable = table.map(Unmanaged.passUnretained) }
    }
    /// `table`, not counted, for a read that borrows it (`Realm.borrowedTable`): loading the
    /// counted reference retained and released it around every lookup by primary key.
    @exclusivity(unchecked) private(set) var unretainedTable: Unmanaged<ReadTable>?
    @exclusivity(unchecked) var tableStamp = -1
    /// The number of rows of `table` (see `Realm.rowCount(_:)`).
    @exclusivity(unchecked) var tableRowCount = 0
    /// The class's table in the write transaction numbered `writerSerial` (see
    /// `Realm.writeTable(_:)`).
    @exclusivity(unchecked) var writer: TableWriter?
    @exclusivity(unchecked) var writerSerial = -1
    /// The next key to hand to an object being added in that transaction: keys are taken
    /// before the row is inserted, so that links back to the object (a cycle) find it.
    @exclusivity(unchecked) var nextPendingKey: UInt64 = 0
    /// The primary key's column, if the class has one.
    let primaryKeyColumn: Int?
    /// Whether the primary key is an `Int`, whose values give objects their row keys where
    /// they can (`PrimaryKeyRowKey`).
    let primaryKeyGivesRowKeys: Bool
    /// The element table of each list property, by column (see `ListStore`).
    let listTables: [Int: String]
    /// How each property is read, by name: decided once so that a read needs no dynamic cast.
    let access: [String: PropertyAccess]
    /// The slots written into managed instances, by instance type (see `PropertySlots`), and
    /// those of `type` unretained (`propertySlots` keeps them), so that making an object
    /// counts no references for them. (Exclusivity is unchecked: read each time an object is
    /// made, and only set before.)
    @exclusivity(unchecked) var propertySlots: [ObjectIdentifier: PropertySlots] = [:]
    @exclusivity(unchecked) var typeSlots: Unmanaged<PropertySlots>?
    /// An accessor of `type` an iteration ended with, which nobody else held, its row let go
    /// of: the next iteration of this class makes it its first accessor instead of making
    /// one (see `Results.Iterator`). A query run in a loop made and freed an object per call.
    @exclusivity(unchecked) var spareAccessor: Object?
    /// Where the leaves of the class's rows were last found, by row key, when its primary key
    /// gives row keys: a lookup by primary key starts loading its row from it before making
    /// the object it returns (see `LeafDirectory`). Confined with the realm, as this info is.
    let primaryKeyLeaves: LeafDirectory?
    /// The buffer of the last object looked up by primary key (see `lookupBuffer(in:)`).
    @exclusivity(unchecked) private var lastLookupBuffer: RowBuffer?
    /// The predicate strings `filter` has bound to this class (see `BoundTemplate`).
    @exclusivity(unchecked) var filterTemplates = BoundTemplates()
    /// Where each stored property's `@Persisted` storage sits in an instance, in column order:
    /// memory of the class info's own, which reading needs no reference counted for (an array
    /// here was retained and released around every add).
    private var fields: UnsafeMutableBufferPointer<StorageField>?

    /// The storage fields of the stored properties, found once from a sample instance; valid
    /// as long as the class info.
    func storageFields(of sample: Object) -> UnsafeBufferPointer<StorageField> {
        if let fields { return UnsafeBufferPointer(fields) }
        let types = PersistedFields.storageTypes(of: sample)
        let found = schema.storedProperties.map { property in
            guard let offset = PersistedFields.offset(of: property.name, in: type), let storage = types[property.name] else {
                stop("cannot find the storage of '\(schema.className).\(property.name)'")
            }
            return StorageField(offset: offset, type: storage)
        }
        let stored = UnsafeMutableBufferPointer<StorageField>.allocate(capacity: found.count)
        _ = stored.initialize(from: found)
        fields = stored
        return UnsafeBufferPointer(stored)
    }

    /// A buffer for the row of an object looked up in `realm`: the last lookup's, emptied,
    /// once no accessor holds it. A lookup in a loop allocated and freed a buffer per object.
    ///
    /// - Important: The buffer does not keep the realm alive (the realm keeps it), so each
    ///   accessor of one of its rows must count a reference to the realm (`__realmOwner`).
    ///   The buffer is returned unretained: the class info keeps it until the next lookup,
    ///   and the accessor made with it counts it (returning it counted retained and released
    ///   it around every lookup).
    func lookupBuffer(in realm: Realm) -> Unmanaged<RowBuffer> {
        if lastLookupBuffer != nil, isKnownUniquelyReferenced(&lastLookupBuffer!), lastLookupBuffer!.realm === realm {
            // Borrowed for the call: this class info keeps it (counting it cost two atomic
            // operations a lookup).
            let buffer = Unmanaged.passUnretained(lastLookupBuffer.unsafelyUnwrapped)
            buffer._withUnsafeGuaranteedRef { $0.removeAll() }
            return buffer
        } else {
            lastLookupBuffer = RowBuffer.make(realm: realm, tableName: schema.className, keepRealm: false)
        }
        return Unmanaged.passUnretained(lastLookupBuffer.unsafelyUnwrapped)
    }

    deinit {
        if let fields {
            fields.deinitialize()
            fields.deallocate()
        }
    }

    init(schema: ObjectSchema, type: Object.Type) {
        self.schema = schema
        self.type = type
        tableName = SchemaStore.tableName(forClass: schema.className)
        let columns = Dictionary(uniqueKeysWithValues: schema.storedProperties.enumerated().map { ($1.name, $0) })
        self.columns = columns
        primaryKeyColumn = schema.primaryKeyProperty.flatMap { columns[$0.name] }
        primaryKeyGivesRowKeys = schema.primaryKeyProperty?.type == .int
        primaryKeyLeaves = primaryKeyGivesRowKeys ? LeafDirectory() : nil
        listTables = Dictionary(uniqueKeysWithValues: schema.storedProperties.enumerated().filter(\.element.isCollection).map {
            ($0.offset, ListStore.tableName(forClass: schema.className, property: $0.element))
        })
        access = Dictionary(uniqueKeysWithValues: schema.properties.map { property in
            let kind: PropertyAccess
            if property.type == .linkingObjects {
                kind = .linkingObjects(property)
            } else if property.isCollection {
                kind = .list(column: columns[property.name]!)
            } else {
                kind = .value(column: columns[property.name]!)
            }
            return (property.name, kind)
        })
    }
}

/// How a property of a managed object is read.
enum PropertyAccess {
    /// A value in a column.
    case value(column: Int)
    /// A list in a column.
    case list(column: Int)
    /// Linking objects, computed from another class's links.
    case linkingObjects(Property)
}
