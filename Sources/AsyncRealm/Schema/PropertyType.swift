/// The type of a persisted property, as the schema records it. Names follow RealmSwift.
public enum PropertyType: String, Sendable, Hashable, CaseIterable {
    /// `Int`, `Int8`, `Int16`, `Int32`, `Int64`, and enums with an `Int` raw value.
    case int
    /// `Bool`.
    case bool
    /// `Float`.
    case float
    /// `Double`.
    case double
    /// `String`, and enums with a `String` raw value.
    case string
    /// `Data`.
    case data
    /// `Date`, to the nanosecond.
    case date
    /// `ObjectId`.
    case objectId
    /// `Decimal`, stored as Realm's 128-bit decimal is: exactly, not as a `Double`.
    case decimal128
    /// `UUID`.
    case uuid = "UUID"
    /// A link to another object (always optional), or a `List` of them.
    case object
    /// `LinkingObjects`: the objects linking to this one through a named property. Not stored.
    case linkingObjects
    /// `AnyRealmValue`: a value of any of the types above, or a link to an object of any class.
    case any = "mixed"

    /// Whether a property of this type can be a primary key.
    var canBePrimaryKey: Bool {
        switch self {
        case .int, .string, .uuid, .objectId: return true
        default: return false
        }
    }

    /// Whether a property of this type can be indexed.
    var canBeIndexed: Bool {
        switch self {
        case .int, .bool, .string, .date, .uuid, .objectId: return true
        default: return false
        }
    }
}
