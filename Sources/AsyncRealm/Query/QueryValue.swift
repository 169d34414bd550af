import Foundation

/// A constant in a query: a literal of the predicate string or an argument.
enum QueryValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case objectId(ObjectId)
    case decimal(Decimal)
    /// A managed object given as an argument: its class and row key.
    case object(className: String, key: UInt64)
    /// An array given for `IN %@`, or `{a, b}`.
    case list([QueryValue])
    /// In a template parsed once for many calls (`ParsedTemplates`), where argument `index`
    /// goes; each call puts its argument there before the predicate is bound.
    case argument(Int)

    /// `value` (an argument) as a query constant; nil if it has no query form.
    static func from(argument value: Any?) -> QueryValue? {
        guard let value else { return .null }
        return from(present: value)
    }

    /// `value` (an argument that is there) as a query constant; nil if it has no query form.
    static func from(present value: Any) -> QueryValue? {
        if let common = fromCommonType(value) { return common }
        // The usual concrete types first: a cast to a concrete type is a compare of type
        // metadata, one to a protocol (`any BinaryInteger`) a conformance lookup, which cost a
        // tenth of a one-probe indexed query when every String argument went through it.
        switch value {
        case let value as String: return .string(value)
        case let value as Int: return .int(Int64(value))
        case let value as QueryValue: return value
        case let value as Bool: return .bool(value)
        case let value as Double: return .double(value)
        case let value as any BinaryInteger: return Int64(exactly: value).map(QueryValue.int)
        case let value as Float: return .double(Double(value))
        case let value as Substring: return .string(String(value))
        case let value as Date: return .date(value)
        case let value as Data: return .data(value)
        case let value as UUID: return .uuid(value)
        case let value as ObjectId: return .objectId(value)
        case let value as Decimal: return .decimal(value)
        case let value as Object:
            guard let managed = value.managed else { return nil }
            return .object(className: managed.info.schema.className, key: managed.key)
        case let value as AnyRealmValue: return from(mixed: value)
        case let value as any _CustomPersistable: return from(argument: value.persistableValue)
        case let value as any RawRepresentable: return from(argument: value.rawValue)
        case let value as [Any?]:
            var items: [QueryValue] = []
            for item in value {
                guard let converted = from(argument: item) else { return nil }
                items.append(converted)
            }
            return .list(items)
        case let value as any Sequence:
            return from(argument: Array(value) as [Any?])
        // `NSNull()` stands for nil, as in RealmSwift's (and NSPredicate's) arguments.
        case is NSNull: return .null
        default:
            if let optional = value as? OptionalQueryArgument { return optional.isNil ? .null : nil }
            return nil
        }
    }
}

extension QueryValue {
    /// The value an `AnyRealmValue` holds, as a query constant.
    private static func from(mixed value: AnyRealmValue) -> QueryValue? {
        switch value {
        case .none: .null
        case .int(let number): .int(Int64(number))
        case .bool(let flag): .bool(flag)
        case .float(let number): .double(Double(number))
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .data(let data): .data(data)
        case .date(let date): .date(date)
        case .objectId(let id): .objectId(id)
        case .decimal128(let decimal): .decimal(decimal)
        case .uuid(let uuid): .uuid(uuid)
        case .object(let object): from(argument: object)
        // A list or dictionary is no constant a query compares with.
        case .list, .dictionary: nil
        }
    }

    /// `value` as a query constant if it is a `String`, `Int`, `Double` or `Bool`, told by its
    /// type alone. A cast out of `Any` goes through the runtime's general cast, a few hundred
    /// instructions; an opened existential compares type pointers.
    private static func fromCommonType(_ value: Any) -> QueryValue? {
        func open<T>(_ value: T) -> QueryValue? {
            if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
            if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
            if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
            if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
            return nil
        }
        return _openExistential(value, do: open)
    }
}

/// Recognises a nil `Optional` passed as an argument typed `Any`.
private protocol OptionalQueryArgument {
    var isNil: Bool { get }
}

extension Optional: OptionalQueryArgument {
    var isNil: Bool { self == nil }
}
