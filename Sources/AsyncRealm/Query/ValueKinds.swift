import StorageEngine

/// `@type` in a query (`mixed.@type == 'string'`): the kind of a value as one bit, and the
/// kinds a name stands for, as Realm's query language names them (in any case): `'numeric'`
/// is every kind of number, `'integer'` the same as `'int'`, and so on.
///
/// A property of one type has that type's kind whatever it holds (`age.@type == 'int'` holds
/// for every object, and an optional property's nil is of its type too); an `AnyRealmValue`
/// has the kind of the value it holds, `'null'` when it holds none.
enum ValueKinds {
    static let null: Int64 = 1 << 0
    static let int: Int64 = 1 << 1
    static let bool: Int64 = 1 << 2
    static let string: Int64 = 1 << 3
    static let binary: Int64 = 1 << 4
    static let date: Int64 = 1 << 5
    static let float: Int64 = 1 << 6
    static let double: Int64 = 1 << 7
    static let decimal: Int64 = 1 << 8
    static let object: Int64 = 1 << 9
    static let objectId: Int64 = 1 << 10
    static let uuid: Int64 = 1 << 11
    static let list: Int64 = 1 << 12
    static let dictionary: Int64 = 1 << 13
    static let numeric = int | float | double | decimal

    private static let byName: [(name: String, kinds: Int64)] = [
        ("null", null), ("int", int), ("integer", int), ("int16", int), ("int32", int), ("int64", int),
        ("short", int), ("long", int), ("byte", int), ("char", int), ("bool", bool), ("boolean", bool),
        ("string", string), ("binary", binary), ("data", binary), ("bytearray", binary), ("byte[]", binary),
        ("bindata", binary), ("date", date), ("datetimeoffset", date), ("timestamp", date), ("float", float),
        ("double", double), ("decimal128", decimal), ("decimal", decimal), ("object", object), ("link", object),
        ("objectid", objectId), ("uuid", uuid), ("guid", uuid), ("numeric", numeric),
        ("list", list), ("array", list), ("dictionary", dictionary),
    ]

    /// The kinds `name` stands for; nil for a name that is none.
    static func kinds(named name: String) -> Int64? {
        let lowered = name.lowercased()
        return byName.first { $0.name == lowered }?.kinds
    }

    /// The names a query may give, for a message.
    static var names: String { byName.map(\.name).joined(separator: ", ") }

    /// The kind of every value of a property of `type` (not `AnyRealmValue`).
    static func kind(of type: PropertyType) -> Int64 {
        switch type {
        case .int: int
        case .bool: bool
        case .string: string
        case .data: binary
        case .date: date
        case .float: float
        case .double: double
        case .decimal128: decimal
        case .object, .linkingObjects: object
        case .objectId: objectId
        case .uuid: uuid
        case .any: null
        }
    }

    /// The kind of the value an `AnyRealmValue` property holds as `stored`.
    static func kind(ofMixed stored: RowValue) -> Int64 {
        switch MixedValue(stored: stored) {
        case .none, .malformed: return null
        case .objectId: return objectId
        case .decimal: return decimal
        case .object: return object
        case .list: return list
        case .dictionary: return dictionary
        case .value(let value):
            switch value {
            case .null: return null
            case .bool: return bool
            case .int: return int
            case .float: return float
            case .double: return double
            case .string: return string
            case .binary: return binary
            case .timestamp: return date
            case .uuid: return uuid
            case .objectKey: return object
            case .list: return null
            }
        }
    }
}
