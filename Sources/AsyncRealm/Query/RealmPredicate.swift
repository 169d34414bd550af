/// A parsed predicate, with its arguments: a `Sendable` value that can be made once and used
/// to filter any `Results` of a class it fits.
///
///     let adults = try RealmPredicate("age >= %@ AND name BEGINSWITH[c] %@", 18, "a")
///     let found = try realm.objects(Person.self).filter(adults)
///
/// The initialiser throws a `Realm.Error` with code `invalidQuery` for text that does not
/// parse; `filter` throws the same code when the predicate names a property the class does not
/// have or compares values that do not compare. Both give the character position.
public struct RealmPredicate: Sendable, CustomStringConvertible {
    /// The predicate string as written.
    public let format: String
    let node: QueryNode
    let modifiers: QueryModifiers

    /// Parses `format` with `arguments` for its `%@`, `%d`, `%f`, `%K` and `$0`-style
    /// placeholders. Arguments can be values of any property type, arrays of them (for `IN`),
    /// managed objects (for links) and key path strings (for `%K`).
    ///
    /// - Parameters:
    ///   - format: The predicate text (see `Docs/Queries.md`).
    ///   - arguments: The values for its placeholders, in order.
    /// - Throws: `invalidQuery` when the text does not parse or the arguments do not fit, with the
    ///   character position.
    public init(_ format: String, _ arguments: Any...) throws {
        try self.init(format, arguments: arguments)
    }

    /// Parses `format` with an array of arguments.
    ///
    /// - Parameters:
    ///   - format: The predicate text.
    ///   - arguments: The values for its placeholders, in order.
    /// - Throws: `invalidQuery` when the text does not parse or the arguments do not fit.
    public init(_ format: String, arguments: [Any]) throws {
        try self.init(format, values: try Self.values(of: arguments).array)
    }

    init(_ format: String, values: [QueryValue]) throws {
        self.format = format
        (node, modifiers) = try ParsedTemplates.parse(format, arguments: values)
    }

    /// `arguments` as query constants; throws for one that has no query form.
    static func values(of arguments: [Any]) throws -> QueryArguments {
        // A plain loop over the stored arguments: a query run in a loop converts its arguments
        // every time, and mapping them through a throwing closure copied each one out first.
        func converted(_ index: Int, _ argument: Any) throws -> QueryValue {
            guard let value = QueryValue.from(present: argument) else {
                throw RealmError(code: .invalidQuery, message: "argument \(index + 1) (\(type(of: argument))) cannot be used in a query; give a value of a property type, an array of them, or a managed object")
            }
            return value
        }
        return try arguments.withUnsafeBufferPointer { arguments in
            if arguments.count == 1 { return .one(try converted(0, arguments[0])) }
            var values: [QueryValue] = []
            values.reserveCapacity(arguments.count)
            for index in arguments.indices { values.append(try converted(index, arguments[index])) }
            return .many(values)
        }
    }

    public var description: String { format }
}
