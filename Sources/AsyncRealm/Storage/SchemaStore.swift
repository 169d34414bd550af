import StorageEngine

/// Keeps the object schema in the file, next to the tables it describes.
///
/// Table `__schema` holds one row per class: the class name and its properties (each a list of
/// name, type, optional, array, primary, indexed, linked class, origin property). The objects
/// of class `C` live in table `class_C`, one column per stored property in declaration order,
/// with a unique index on the primary key, an index on each indexed property and on each link;
/// the elements of its lists live in tables of their own (see `ListStore`).
enum SchemaStore {
    static let tableName = "__schema"

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

    /// Stores `schema` and creates its tables and indexes: the class's table, with the unique
    /// index of the primary key, an index per indexed property and the backlink index of each
    /// link; and the element table of each list (see `ListStore`), with a backlink index if it
    /// holds objects.
    static func add(_ schema: ObjectSchema, in transaction: WriteTransaction) throws {
        try transaction.createTable(tableName).insert(encode(schema))
        let table = transaction.createTable(tableName(forClass: schema.className))
        for (column, property) in schema.storedProperties.enumerated() {
            if property.isArray {
                let elements = transaction.createTable(ListStore.tableName(forClass: schema.className, property: property.name))
                if property.type == .object { try elements.addIndex(on: 0, unique: false) }
            } else if property.isIndexed || property.type == .object {
                try table.addIndex(on: column, unique: property.isPrimary)
            }
        }
    }

    /// How `stored` and `model` differ, one line per difference; empty if they agree.
    static func differences(stored: ObjectSchema, model: ObjectSchema) -> [String] {
        let className = model.className
        var lines: [String] = []
        for property in stored.properties where model[property.name] == nil {
            lines.append("property '\(className).\(property.name)' was removed")
        }
        for property in model.properties {
            guard let old = stored[property.name] else {
                lines.append("property '\(className).\(property.name)' was added")
                continue
            }
            if old.type != property.type || old.isArray != property.isArray || old.objectClassName != property.objectClassName
                || old.linkOriginPropertyName != property.linkOriginPropertyName {
                lines.append("property '\(className).\(property.name)' changed type from '\(old)' to '\(property)'")
            } else if old.isOptional != property.isOptional {
                lines.append("property '\(className).\(property.name)' changed from \(old.isOptional ? "optional" : "required") to \(property.isOptional ? "optional" : "required")")
            }
            if old.isPrimary != property.isPrimary {
                lines.append("property '\(className).\(property.name)' \(property.isPrimary ? "became" : "is no longer") the primary key")
            } else if old.isIndexed != property.isIndexed {
                lines.append("property '\(className).\(property.name)' \(property.isIndexed ? "gained" : "lost") its index")
            }
        }
        let storedOrder = stored.storedProperties.map(\.name)
        let modelOrder = model.storedProperties.map(\.name)
        if lines.isEmpty && storedOrder != modelOrder {
            lines.append("the properties of '\(className)' changed order")
        }
        return lines
    }

    private static func encode(_ schema: ObjectSchema) -> [RowValue] {
        [.string(schema.className), .list(schema.properties.map { property in
            .list([
                .string(property.name), .string(property.type.rawValue), .bool(property.isOptional),
                .bool(property.isArray), .bool(property.isPrimary), .bool(property.isIndexed),
                property.objectClassName.map(RowValue.string) ?? .null,
                property.linkOriginPropertyName.map(RowValue.string) ?? .null,
            ])
        })]
    }

    private static func decode(_ row: [RowValue]) throws -> ObjectSchema {
        guard row.count == 2, case .string(let className) = row[0], case .list(let encoded) = row[1] else {
            throw RealmError(code: .invalidDatabase, message: "the stored schema has a malformed class entry")
        }
        let properties = try encoded.map { value -> Property in
            guard case .list(let fields) = value, fields.count == 8,
                  case .string(let name) = fields[0], case .string(let typeName) = fields[1],
                  let type = PropertyType(rawValue: typeName),
                  case .bool(let isOptional) = fields[2], case .bool(let isArray) = fields[3],
                  case .bool(let isPrimary) = fields[4], case .bool(let isIndexed) = fields[5] else {
                throw RealmError(code: .invalidDatabase, message: "the stored schema of '\(className)' has a malformed property")
            }
            let objectClassName: String? = if case .string(let linked) = fields[6] { linked } else { nil }
            let origin: String? = if case .string(let origin) = fields[7] { origin } else { nil }
            return Property(
                name: name, type: type, isOptional: isOptional, isArray: isArray, isPrimary: isPrimary,
                isIndexed: isIndexed, objectClassName: objectClassName, linkOriginPropertyName: origin)
        }
        return ObjectSchema(className: className, properties: properties)
    }
}
