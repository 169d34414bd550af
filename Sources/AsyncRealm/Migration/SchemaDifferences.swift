/// How the models differ from the schema stored in a file, one line per difference, in the
/// words of the models ("property 'Dog.age' was added", "property 'Person.name' changed from
/// String to Int", "class 'Cat' was removed").
///
/// Added classes are not differences: any open may add them. Removed classes are, when the
/// models are the whole schema (`Configuration.objectTypes` set); with classes registered on
/// first use, a class the models do not name yet is not known to be gone.
enum SchemaDifferences {
    /// Every difference between `stored` and `models`; empty if opening needs no migration.
    static func between(stored: [String: ObjectSchema], models: [ObjectSchema], modelsAreComplete: Bool) -> [String] {
        var lines: [String] = []
        if modelsAreComplete {
            let modelNames = Set(models.map(\.className))
            for className in stored.keys.sorted() where !modelNames.contains(className) {
                lines.append("class '\(className)' was removed")
            }
        }
        for model in models.sorted(by: { $0.className < $1.className }) {
            if let existing = stored[model.className] { lines += between(stored: existing, model: model) }
        }
        return lines
    }

    /// How one class's model differs from its stored schema, property by property as the
    /// file names them (their column names, see `Object.propertiesMapping()`); each line names
    /// the model's property, and its column where the two names differ.
    static func between(stored: ObjectSchema, model declared: ObjectSchema) -> [String] {
        let (stored, model) = (stored.stored, declared.stored)
        let className = model.className
        /// `'Class.property'` for the property stored under `column`, with the column's name
        /// when it differs; a column no model property has is named as the file names it.
        func described(_ column: String) -> String {
            guard let property = declared[columnName: column], property.name != column else { return "'\(className).\(column)'" }
            return "'\(className).\(property.name)' (column '\(column)')"
        }
        var lines: [String] = []
        if stored.isEmbedded != model.isEmbedded {
            lines.append("class '\(className)' \(model.isEmbedded ? "became" : "is no longer") an EmbeddedObject")
        }
        for property in stored.properties where model[property.name] == nil {
            lines.append("property \(described(property.name)) was removed")
        }
        for property in model.properties {
            guard let old = stored[property.name] else {
                lines.append("property \(described(property.name)) was added")
                continue
            }
            if old.typeName != property.typeName {
                lines.append("property \(described(property.name)) changed from \(old.typeName) to \(property.typeName)")
            }
            if old.isPrimary != property.isPrimary {
                lines.append("property \(described(property.name)) \(property.isPrimary ? "became" : "is no longer") the primary key")
            } else if old.isIndexed != property.isIndexed {
                lines.append("property \(described(property.name)) \(property.isIndexed ? "gained" : "lost") its index")
            }
        }
        if lines.isEmpty && stored.storedProperties.map(\.name) != model.storedProperties.map(\.name) {
            lines.append("the properties of '\(className)' changed order")
        }
        return lines
    }
}

extension Property {
    /// The property's type as the model declares it: `Int`, `String?`, `List<Dog>`, `MutableSet<String>`,
    /// `LinkingObjects<Person>(owner)`.
    var typeName: String {
        if type == .linkingObjects { return "LinkingObjects<\(objectClassName ?? "?")>(\(linkOriginPropertyName ?? "?"))" }
        let element = objectClassName ?? type.swiftName
        if let collection = collectionTypeName { return "\(collection)<\(isMap ? "String, " : "")\(element)\(isOptional ? "?" : "")>" }
        return element + (isOptional ? "?" : "")
    }
}

extension PropertyType {
    /// The Swift type a model declares for a property of this type.
    var swiftName: String {
        switch self {
        case .int: "Int"
        case .bool: "Bool"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .objectId: "ObjectId"
        case .decimal128: "Decimal128"
        case .uuid: "UUID"
        case .object: "Object"
        case .linkingObjects: "LinkingObjects"
        case .any: "AnyRealmValue"
        }
    }
}
