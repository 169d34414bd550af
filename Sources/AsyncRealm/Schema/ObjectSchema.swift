/// The persisted properties of one object type, in declaration order.
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The class name: the Swift type's name, without its module.
    public let className: String
    /// The persisted properties, in declaration order (linking objects included).
    public let properties: [Property]
    /// Whether the class is an `EmbeddedObject`: its objects live inside the one object that
    /// links to them.
    public let isEmbedded: Bool
    /// The properties that are stored as columns (all but linking objects), in column order.
    let storedProperties: [Property]

    init(className: String, properties: [Property], isEmbedded: Bool = false) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        storedProperties = properties.filter { $0.type != .linkingObjects }
    }

    /// The schema as the file stores it: each property named by its column name (see
    /// `Object.propertiesMapping()`); the schema itself when no property has a column name of
    /// its own.
    var stored: ObjectSchema {
        guard properties.contains(where: { $0.columnName != $0.name }) else { return self }
        return ObjectSchema(className: className, properties: properties.map(\.stored), isEmbedded: isEmbedded)
    }

    /// The primary key property, if the type has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named `name`, if there is one.
    ///
    /// - Parameter name: A property name.
    public subscript(name: String) -> Property? { properties.first { $0.name == name } }

    /// The property whose name in the file is `columnName` (see `Property.columnName`).
    subscript(columnName columnName: String) -> Property? { properties.first { $0.columnName == columnName } }


    public var description: String {
        "\(className)\(isEmbedded ? " (embedded)" : "") {\n" + properties.map { "    \($0)" }.joined(separator: "\n") + "\n}"
    }
}

/// The object types of a realm.
public struct Schema: Sendable, Hashable, CustomStringConvertible {
    /// Every object schema, sorted by class name.
    public let objectSchema: [ObjectSchema]

    init(_ objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema.sorted { $0.className < $1.className }
    }

    /// The schema of the class named `className`, if the realm has it.
    ///
    /// - Parameter className: A class name.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }
}
