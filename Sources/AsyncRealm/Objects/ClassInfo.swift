import StorageEngine

/// What a realm knows of one model class: its schema, its table and its columns.
final class ClassInfo {
    let schema: ObjectSchema
    let type: Object.Type
    let tableName: String
    /// Column of each stored property, by name.
    let columns: [String: Int]
    /// The class's table as the realm read it at `tableStamp` (see `Realm.readTable(_:)`).
    @exclusivity(unchecked) var table: (any TableReading)?
    @exclusivity(unchecked) var tableStamp = -1
    /// The class's table in the write transaction numbered `writerSerial` (see
    /// `Realm.writeTable(_:)`).
    @exclusivity(unchecked) var writer: TableWriter?
    @exclusivity(unchecked) var writerSerial = -1
    /// The next key to hand to an object being added in that transaction: keys are taken
    /// before the row is inserted, so that links back to the object (a cycle) find it.
    @exclusivity(unchecked) var nextPendingKey: UInt64 = 0
    /// The primary key's column, if the class has one.
    let primaryKeyColumn: Int?
    /// The element table of each list property, by column (see `ListStore`).
    let listTables: [Int: String]
    /// How each property is read, by name: decided once so that a read needs no dynamic cast.
    let access: [String: PropertyAccess]
    /// The `@Persisted` storage key paths accessors have used, with their property: searched
    /// by the key path's identity, a few pointer comparisons per read (cheaper than hashing).
    /// The key path is kept with its entry so that its address cannot be reused by another.
    private var storageKeyPaths: [StorageKeyPath] = []
    /// The identities of `storageKeyPaths` and their value columns (-1 for lists and linking
    /// objects), apart so that the search on every read copies nothing that is reference counted.
    /// (Exclusivity is unchecked: each is read on every property read and only appended to,
    /// never during a read.)
    @exclusivity(unchecked) private var storageIdentities: [ObjectIdentifier] = []
    @exclusivity(unchecked) private var storageColumns: [Int] = []

    struct StorageKeyPath {
        let identity: ObjectIdentifier
        let keyPath: AnyKeyPath
        let name: String
        let access: PropertyAccess
    }
    /// Where each stored property's `@Persisted` storage sits in an instance, in column order.
    private var fields: [(offset: Int, type: PersistedPropertyDescribing.Type)]?

    /// The storage fields of the stored properties, found once from a sample instance.
    func storageFields(of sample: Object) -> [(offset: Int, type: PersistedPropertyDescribing.Type)] {
        if let fields { return fields }
        var types: [String: PersistedPropertyDescribing.Type] = [:]
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            for child in current.children {
                if let label = child.label, let persisted = child.value as? PersistedPropertyDescribing {
                    types[String(label.dropFirst())] = Swift.type(of: persisted)
                }
            }
            mirror = current.superclassMirror
        }
        let found = schema.storedProperties.map { property in
            guard let offset = PersistedFields.offset(of: property.name, in: type), let storage = types[property.name] else {
                preconditionFailure("cannot find the storage of '\(schema.className).\(property.name)'")
            }
            return (offset, storage)
        }
        fields = found
        return found
    }

    /// The property whose storage `keyPath` reaches, if an accessor has used it before.
    func property(forStorage keyPath: AnyKeyPath) -> StorageKeyPath? {
        let identity = ObjectIdentifier(keyPath)
        for entry in storageKeyPaths where entry.identity == identity { return entry }
        return nil
    }

    /// The column of the value property whose storage `keyPath` reaches; nil for lists,
    /// linking objects and key paths not seen yet.
    @inline(__always)
    func valueColumn(forStorage keyPath: AnyKeyPath) -> Int? {
        let identity = ObjectIdentifier(keyPath)
        guard let position = storageIdentities.firstIndex(of: identity) else { return nil }
        let column = storageColumns[position]
        return column < 0 ? nil : column
    }

    /// Remembers that `keyPath` reaches property `name`'s storage. Key paths are normally one
    /// instance per property; an equal key path under a new identity is not added again, so
    /// the list stays as short as the class.
    func remember(storage keyPath: AnyKeyPath, name: String) -> StorageKeyPath {
        let entry = StorageKeyPath(identity: ObjectIdentifier(keyPath), keyPath: keyPath, name: name, access: access[name]!)
        if !storageKeyPaths.contains(where: { $0.keyPath == keyPath }) {
            immortalize(keyPath)
            storageKeyPaths.append(entry)
            storageIdentities.append(entry.identity)
            if case .value(let column) = entry.access { storageColumns.append(column) } else { storageColumns.append(-1) }
        }
        return entry
    }

    init(schema: ObjectSchema, type: Object.Type) {
        self.schema = schema
        self.type = type
        tableName = SchemaStore.tableName(forClass: schema.className)
        let columns = Dictionary(uniqueKeysWithValues: schema.storedProperties.enumerated().map { ($1.name, $0) })
        self.columns = columns
        primaryKeyColumn = schema.primaryKeyProperty.flatMap { columns[$0.name] }
        listTables = Dictionary(uniqueKeysWithValues: schema.storedProperties.enumerated().filter(\.element.isArray).map {
            ($0.offset, ListStore.tableName(forClass: schema.className, property: $0.element.name))
        })
        access = Dictionary(uniqueKeysWithValues: schema.properties.map { property in
            let kind: PropertyAccess
            if property.type == .linkingObjects {
                kind = .linkingObjects(property)
            } else if property.isArray {
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

@_silgen_name("_swift_stdlib_immortalize")
private func _swift_stdlib_immortalize(_ object: UnsafeMutableRawPointer)

/// Marks a key path literal immortal. Every property access materialises the property's
/// key-path object (one per property, cached by the runtime for the process's life) and
/// retains and releases it: an atomic write to one shared cache line, which tasks reading
/// objects on several cores at once would fight over. Retaining an immortal object only reads
/// its count, so the line stays shared. Safe because the runtime never frees these literals.
private func immortalize(_ keyPath: AnyKeyPath) {
    _swift_stdlib_immortalize(Unmanaged.passUnretained(keyPath).toOpaque())
}
