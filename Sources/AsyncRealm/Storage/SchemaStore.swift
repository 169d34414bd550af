import StorageEngine

/// Keeps the object schema in the file, next to the tables it describes.
///
/// Table `__schema` holds one row per class: the class name, its properties (each a list of
/// name, type, optional, array, primary, indexed, linked class, origin property, set, map) and
/// whether it is embedded. The objects of class `C` live in table `class_C`, one column per stored property in declaration order,
/// with a unique index on the primary key, an index on each indexed property and on each link;
/// the elements of its lists and sets and the entries of its maps live in tables of their own
/// (see `ListStore`, `MapStore`).
enum SchemaStore {
    static let tableName = "__schema"
    /// Table `__metadata` holds one row, key 1: the schema version (`UInt64` bits in an `.int`).
    /// A file with a schema and no such table predates versions: its version is 0.
    static let metadataTableName = "__metadata"

    static func tableName(forClass className: String) -> String { "class_" + className }

    /// The schema stored in `snapshot`, by class name.
    static func load(from snapshot: Snapshot) throws -> [String: ObjectSchema] {
        try load(from: snapshot.tableIfPresent(tableName))
    }

    /// The schema as `transaction` sees it, with the write lock held: what another handle or
    /// process stored since this handle last read is in it.
    static func load(in transaction: WriteTransaction) throws -> [String: ObjectSchema] {
        try load(from: transaction.tableIfPresent(tableName))
    }

    private static func load(from table: (some TableReading)?) throws -> [String: ObjectSchema] {
        guard let table else { return [:] }
        var schemas: [String: ObjectSchema] = [:]
        try table.scan { _, row in
            let schema = try decode(try row.decoded())
            schemas[schema.className] = schema
            return true
        }
        return schemas
    }

    /// The schema version stored in `snapshot`; nil for a file that has no schema yet.
    static func version(from snapshot: Snapshot) throws -> UInt64? {
        try version(metadata: snapshot.tableIfPresent(metadataTableName), schema: snapshot.tableIfPresent(tableName))
    }

    /// The schema version as `transaction` sees it; nil for a file that has no schema yet.
    static func version(in transaction: WriteTransaction) throws -> UInt64? {
        try version(metadata: transaction.tableIfPresent(metadataTableName), schema: transaction.tableIfPresent(tableName))
    }

    private static func version(metadata: (some TableReading)?, schema: (some TableReading)?) throws -> UInt64? {
        guard let metadata else { return schema == nil ? nil : 0 }
        guard case .int(let bits)? = try metadata.value(1, column: 0) else {
            throw RealmError(code: .invalidDatabase, message: "the realm's stored schema version is malformed")
        }
        return UInt64(bitPattern: bits)
    }

    /// Stores `version` as the file's schema version.
    static func setVersion(_ version: UInt64, in transaction: WriteTransaction) throws {
        let table = transaction.createTable(metadataTableName)
        let row: [RowValue] = [.int(Int64(bitPattern: version))]
        if try !table.update(1, to: row) { try table.insert(row, forKey: 1) }
    }

    /// Replaces the stored schema by `schemas` (the tables are the caller's business).
    static func replaceSchema(with schemas: [ObjectSchema], in transaction: WriteTransaction) throws {
        let table = transaction.createTable(tableName)
        try table.deleteAll()
        for schema in schemas.sorted(by: { $0.className < $1.className }) { _ = try table.insert(encode(schema)) }
    }

    /// Stores `schema` and creates its tables and indexes (see `createTables(for:in:)`).
    static func add(_ schema: ObjectSchema, in transaction: WriteTransaction) throws {
        try transaction.createTable(tableName).insert(encode(schema))
        try createTables(for: schema, in: transaction)
    }

    /// Creates the tables of `schema`: the class's table, with the unique index of the primary
    /// key, an index per indexed property and the backlink index of each link; and the element
    /// table of each list (see `ListStore`), with a backlink index if it holds objects.
    static func createTables(for schema: ObjectSchema, in transaction: WriteTransaction) throws {
        transaction.createTable(tableName(forClass: schema.className))
        for property in schema.storedProperties where property.isCollection {
            try createListTable(for: property, of: schema.className, in: transaction)
        }
        try addIndexes(of: schema, in: transaction)
    }

    /// Creates the element table of the list, set or map property `property` of `className`.
    static func createListTable(for property: Property, of className: String, in transaction: WriteTransaction) throws {
        let elements = transaction.createTable(ListStore.tableName(forClass: className, property: property))
        guard hasValueIndex(property) else { return }
        try elements.addIndex(on: 0, unique: false)
        if property.isMap { try elements.addIndex(on: MapStore.lookupColumn, unique: false) }
    }

    /// Whether the element table of `property` has an index on its values (column 0): the
    /// backlink index of a list, set or map of objects, and the index that finds the sets and
    /// maps holding a value of an indexable type (`ANY tags == 'x'`); a map's has one on its
    /// entries' key and value together too (`MapStore.lookupColumn`). Lists of values have none,
    /// which keeps appending to them cheap.
    static func hasValueIndex(_ property: Property) -> Bool {
        property.type == .object || ((property.isSet || property.isMap) && property.type.canBeIndexed)
    }

    /// Adds the indexes `schema` asks for to its class's table (those it has are kept): the
    /// primary key's (unique), each indexed property's and each link's (the backlinks).
    ///
    /// An indexed `AnyRealmValue` property is declared so, as RealmSwift allows, and gets no
    /// index: its equality compares numbers of every kind by value (`5 == 5.0`), which an
    /// index keyed by stored form would not find, so its queries read the rows.
    ///
    /// - Throws: `duplicateKey` if two objects share a primary key.
    static func addIndexes(of schema: ObjectSchema, in transaction: WriteTransaction) throws {
        let table = transaction.createTable(tableName(forClass: schema.className))
        for (column, property) in schema.storedProperties.enumerated() where !property.isCollection {
            if (property.isIndexed && property.type != .any) || property.isPrimary || property.type == .object {
                try table.addIndex(on: column, unique: property.isPrimary)
            }
        }
    }

    private static func encode(_ schema: ObjectSchema) -> [RowValue] {
        [.string(schema.className), .list(schema.properties.map { property in
            .list([
                .string(property.columnName), .string(property.type.rawValue), .bool(property.isOptional),
                .bool(property.isArray), .bool(property.isPrimary), .bool(property.isIndexed),
                property.objectClassName.map(RowValue.string) ?? .null,
                property.linkOriginPropertyName.map(RowValue.string) ?? .null,
                .bool(property.isSet), .bool(property.isMap),
            ])
        }), .bool(schema.isEmbedded)]
    }

    private static func decode(_ row: [RowValue]) throws -> ObjectSchema {
        // A third column, whether the class is embedded, came after the first two.
        guard row.count == 2 || row.count == 3, case .string(let className) = row[0], case .list(let encoded) = row[1] else {
            throw RealmError(code: .invalidDatabase, message: "the stored schema has a malformed class entry")
        }
        let properties = try encoded.map { value -> Property in
            // The ninth and tenth fields, whether the property is a set or a map, came after
            // the first eight.
            guard case .list(let fields) = value, (8...10).contains(fields.count),
                  case .string(let name) = fields[0], case .string(let typeName) = fields[1],
                  let type = PropertyType(rawValue: typeName),
                  case .bool(let isOptional) = fields[2], case .bool(let isArray) = fields[3],
                  case .bool(let isPrimary) = fields[4], case .bool(let isIndexed) = fields[5] else {
                throw RealmError(code: .invalidDatabase, message: "the stored schema of '\(className)' has a malformed property")
            }
            let objectClassName: String? = if case .string(let linked) = fields[6] { linked } else { nil }
            let origin: String? = if case .string(let origin) = fields[7] { origin } else { nil }
            let isSet = if fields.count > 8, case .bool(true) = fields[8] { true } else { false }
            let isMap = if fields.count > 9, case .bool(true) = fields[9] { true } else { false }
            return Property(
                name: name, type: type, isOptional: isOptional, isArray: isArray, isSet: isSet, isMap: isMap, isPrimary: isPrimary,
                isIndexed: isIndexed, objectClassName: objectClassName, linkOriginPropertyName: origin)
        }
        let isEmbedded = if row.count > 2, case .bool(true) = row[2] { true } else { false }
        return ObjectSchema(className: className, properties: properties, isEmbedded: isEmbedded)
    }
}
