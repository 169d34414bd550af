/// The values given for a predicate's `%@` placeholders, converted (`RealmPredicate.values(of:)`).
///
/// One value is held inline: `filter("name == %@", name)` in a loop is the common query, and
/// an array for its one argument was an allocation and a free per query.
enum QueryArguments {
    case one(QueryValue)
    case many([QueryValue])

    static let none = QueryArguments.many([])

    var count: Int {
        switch self {
        case .one: 1
        case .many(let values): values.count
        }
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> QueryValue {
        switch self {
        case .one(let value):
            require(index == 0, "argument \(index + 1) of 1")
            return value
        case .many(let values):
            return values[index]
        }
    }

    /// The values in an array.
    var array: [QueryValue] {
        switch self {
        case .one(let value): [value]
        case .many(let values): values
        }
    }
}
