/// One persisted property of an object type.
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name in the Swift class (without the wrapper's leading underscore).
    public let name: String
    /// The stored type (for a list, its elements' type).
    public let type: PropertyType
    /// Whether the property can hold nil (an `Optional` in the model).
    public let isOptional: Bool
    /// Whether the property is a `List` of values of `type`.
    public let isArray: Bool
    /// Whether the property is the class's primary key.
    public let isPrimary: Bool
    /// Whether the property has an index (primary keys always do).
    public let isIndexed: Bool
    /// For links, lists of links and linking objects: the class name of the objects linked.
    public let objectClassName: String?
    /// For linking objects: the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?

    public var description: String {
        var text = "\(name): "
        if isArray { text += "List<" }
        text += objectClassName ?? type.rawValue
        if isArray { text += ">" }
        if isOptional { text += "?" }
        if type == .linkingObjects { text = "\(name): LinkingObjects<\(objectClassName ?? "?")>(\(linkOriginPropertyName ?? "?"))" }
        if isPrimary { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        return text
    }
}
