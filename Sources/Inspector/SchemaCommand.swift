import AsyncRealm

/// `asyncrealm schema FILE`: the classes and properties stored in the file, as Swift models.
enum SchemaCommand {
    static let command = Inspector.Command(
        name: "schema", summary: "the classes and properties, in Swift model syntax",
        help: """
        USAGE: asyncrealm schema FILE [CLASS...] [--key-file PATH]

        Prints the schema stored in the file as the Swift model classes that declare it, every
        class or only those named. An enum property is stored, and printed, as its raw type.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions, flags: [])
        let positionals = try parsed.positionals(1, .max, naming: "the realm file")
        let realm = try RealmFile(path: positionals[0], arguments: parsed).openRealm()
        let names = positionals.dropFirst()
        let classes = try names.isEmpty ? realm.schema.objectSchema : names.map { try RealmFile.objectSchema($0, in: realm) }
        let version = try schemaVersionAtURL(realm.configuration.fileURL!, encryptionKey: realm.configuration.encryptionKey)
        Output.standard.write("// schema version \(version)\n")
        for objectSchema in classes {
            Output.standard.write("\n" + declaration(of: objectSchema))
        }
        return .success
    }

    /// `objectSchema` as a Swift class declaration.
    static func declaration(of objectSchema: ObjectSchema) -> String {
        var text = "final class \(objectSchema.className): \(objectSchema.isEmbedded ? "EmbeddedObject" : "Object") {\n"
        for property in objectSchema.properties {
            text += "    " + declaration(of: property) + "\n"
        }
        return text + "}\n"
    }

    static func declaration(of property: Property) -> String {
        var options: [String] = []
        if property.isPrimary { options.append("primaryKey: true") }
        if property.isIndexed && !property.isPrimary { options.append("indexed: true") }
        if let origin = property.linkOriginPropertyName { options.append("originProperty: \"\(origin)\"") }
        let wrapper = "@Persisted" + (options.isEmpty ? "" : "(" + options.joined(separator: ", ") + ")")
        return "\(wrapper) var \(property.name): \(swiftType(of: property))"
    }

    static func swiftType(of property: Property) -> String {
        let element: String
        switch property.type {
        case .int: element = "Int"
        case .bool: element = "Bool"
        case .float: element = "Float"
        case .double: element = "Double"
        case .string: element = "String"
        case .data: element = "Data"
        case .date: element = "Date"
        case .objectId: element = "ObjectId"
        case .decimal128: element = "Decimal"
        case .uuid: element = "UUID"
        case .object: element = property.objectClassName ?? "Object"
        case .linkingObjects: return "LinkingObjects<\(property.objectClassName ?? "Object")>"
        case .any: element = "AnyRealmValue"
        }
        let optional = property.isOptional || (property.type == .object && !property.isCollection)
        let value = element + (optional ? "?" : "")
        guard let collection = property.collectionTypeName else { return value }
        if property.isMap { return "Map<String, \(value)>" }
        return "\(collection)<\(property.type == .object ? element : value)>"
    }
}
