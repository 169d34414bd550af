/// One persisted property of an object type.
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name in the Swift class (without the wrapper's leading underscore): the
    /// name queries, sorts, key-value coding and dynamic objects use.
    public let name: String
    /// The property's name in the file: `name`, unless the class's `propertiesMapping()` gives
    /// it another (RealmSwift's custom column names).
    public let columnName: String
    /// The stored type (for a list or set, its elements' type; for a map, its values').
    public let type: PropertyType
    /// Whether the property can hold nil (an `Optional` in the model; for a collection, its
    /// elements).
    public let isOptional: Bool
    /// Whether the property is a `List` of values of `type`.
    public let isArray: Bool
    /// Whether the property is a `MutableSet` of values of `type`.
    public let isSet: Bool
    /// Whether the property is a `Map` from `String` keys to values of `type`.
    public let isMap: Bool
    /// Whether the property is the class's primary key.
    public let isPrimary: Bool
    /// Whether the property has an index (primary keys always do).
    public let isIndexed: Bool
    /// For links, collections of links and linking objects: the class name of the objects linked.
    public let objectClassName: String?
    /// For linking objects: the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?

    init(name: String, type: PropertyType, isOptional: Bool, isArray: Bool, isSet: Bool = false, isMap: Bool = false,
         isPrimary: Bool, isIndexed: Bool, objectClassName: String?, linkOriginPropertyName: String?, columnName: String? = nil) {
        self.name = name
        self.columnName = columnName ?? name
        self.type = type
        self.isOptional = isOptional
        self.isArray = isArray
        self.isSet = isSet
        self.isMap = isMap
        self.isPrimary = isPrimary
        self.isIndexed = isIndexed
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
    }

    /// The property as the file stores it: named by its column name.
    var stored: Property {
        guard columnName != name else { return self }
        return Property(
            name: columnName, type: type, isOptional: isOptional, isArray: isArray, isSet: isSet, isMap: isMap,
            isPrimary: isPrimary, isIndexed: isIndexed, objectClassName: objectClassName, linkOriginPropertyName: linkOriginPropertyName)
    }

    /// Whether the property is a collection whose elements live in a table of their own (see
    /// `ListStore`): a `List`, a `MutableSet` or a `Map`.
    package var isCollection: Bool { isArray || isSet || isMap }

    /// The model's name of the collection type, "List", "MutableSet" or "Map"; nil for a
    /// single value.
    package var collectionTypeName: String? {
        if isArray { return "List" }
        if isSet { return "MutableSet" }
        if isMap { return "Map" }
        return nil
    }

    /// One element of this list, set or map, as a property holding a single value of its type.
    var elementProperty: Property {
        Property(name: name, type: type, isOptional: isOptional, isArray: false, isPrimary: false, isIndexed: false,
                 objectClassName: objectClassName, linkOriginPropertyName: nil)
    }

    public var description: String {
        if type == .linkingObjects {
            return "\(name): LinkingObjects<\(objectClassName ?? "?")>(\(linkOriginPropertyName ?? "?"))"
        }
        var element = objectClassName ?? type.rawValue
        if isOptional { element += "?" }
        if isMap { element = "String, " + element }
        var text = "\(name): " + (collectionTypeName.map { "\($0)<\(element)>" } ?? element)
        if isPrimary { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        if columnName != name { text += " (column '\(columnName)')" }
        return text
    }
}
