import Foundation

/// A type-safe query expression, as RealmSwift's `Query<T>`:
///
///     dogs.where { $0.age > 1 && $0.name.contains("Fido", options: .caseInsensitive) }
///     people.where { $0.dogs.age > 5 }                 // any dog older than 5
///     people.where { $0.dogs.count >= 2 }
///     dogs.where { $0.owner.name.starts(with: "A") }
///
/// `$0` is the object; member access follows properties, links and lists. Comparisons build a
/// `Query<Bool>`, which `&&`, `||` and `!` combine. The result is the same predicate a string
/// would give, run by the same engine.
@dynamicMemberLookup
public struct Query<T> {
    let realm: Realm
    /// The key path from the queried object (for a property query).
    let path: [String]
    /// The collection operator applied to `path` (`count`, `min`...), if any.
    let aggregate: String?
    /// For `Query<Bool>`: the predicate built so far.
    let node: QueryNode?

    init(realm: Realm, path: [String], aggregate: String? = nil, node: QueryNode? = nil) {
        self.realm = realm
        self.path = path
        self.aggregate = aggregate
        self.node = node
    }

    var operand: QueryOperand {
        if aggregate == Self.subqueryCount, let node {
            // The list and its variable are found when the query is bound (`impliedSubquery`).
            return .subquery(collection: [], variable: "", predicate: node, position: 0)
        }
        return .keyPath(path, aggregate: aggregate, aggregateProperty: [], position: 0)
    }

    /// The `aggregate` of a query that counts the objects of a list a predicate holds for.
    static var subqueryCount: String { "SUBQUERY" }

    func predicate(_ op: QueryComparison.Operator, _ value: Any?, quantifier: QueryComparison.Quantifier? = nil,
                   caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Query<Bool> {
        guard let constant = QueryValue.from(argument: value) else {
            stop("\(value.map { "\(type(of: $0))" } ?? "nil") cannot be compared in a query; use a value of a property type or a managed object")
        }
        let comparison = QueryComparison(
            quantifier: quantifier, left: operand, op: op, right: .value(constant, position: 0),
            caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive, position: 0)
        return Query<Bool>(realm: realm, path: [], node: .comparison(comparison))
    }
}

// MARK: Member access

extension Query where T: Object {
    /// A property of the queried object: `$0.age`, `$0.owner`, `$0.dogs`.
    ///
    /// - Parameter keyPath: The `@Persisted` property.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        let name = realm.propertyName(of: keyPath, in: T.self)
        return Query<V>(realm: realm, path: path + [name])
    }
}

extension Query {
    /// Members of the object an optional link reaches: `$0.owner.name`.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the linked class.
    public subscript<V, Wrapped: Object>(dynamicMember keyPath: KeyPath<Wrapped, V>) -> Query<V> where T == Wrapped? {
        let name = realm.propertyName(of: keyPath, in: Wrapped.self)
        return Query<V>(realm: realm, path: path + [name])
    }

    /// Members of the objects of a list: `$0.dogs.age > 5` holds when any dog's age does.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the list's element class.
    public subscript<V, Element: Object>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V> where T == List<Element> {
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return Query<V>(realm: realm, path: path + [name])
    }

    /// Members of the objects of a set: `$0.friends.age > 5` holds when any friend's age does.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the set's element class.
    public subscript<V, Element: Object>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V> where T == MutableSet<Element> {
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return Query<V>(realm: realm, path: path + [name])
    }

    /// Members of linking objects: `$0.owners.name == "Ana"`.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the linking class.
    public subscript<V, Element: Object>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V> where T == LinkingObjects<Element> {
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return Query<V>(realm: realm, path: path + [name])
    }
}

// MARK: Comparisons

extension Query where T: _Persistable {
    /// Whether the value equals `rhs` (`==` in a predicate string).
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.equal, rhs) }
    /// Whether the value differs from `rhs`.
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.notEqual, rhs) }

    /// Whether the value is one of some values (`IN` in a predicate string).
    ///
    /// - Parameter values: The values to look for.
    /// - Returns: The comparison, to use or to combine with `&&`, `||` and `!`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        predicate(.in, Array(values))
    }
}

extension Query where T: _Persistable & Comparable {
    /// Whether the value is greater than `rhs`.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the value is greater than or equal to `rhs`.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the value is less than `rhs`.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the value is less than or equal to `rhs`.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }

}

extension Query where T: OptionalQueryComparable {
    /// Whether the value is greater than `rhs` (never for nil).
    public static func > (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the value is greater than or equal to `rhs` (never for nil).
    public static func >= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the value is less than `rhs` (never for nil).
    public static func < (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the value is less than or equal to `rhs` (never for nil).
    public static func <= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

/// Optionals of comparable values, whose queries take ordering comparisons with a value.
public protocol OptionalQueryComparable {
    /// The comparable value.
    associatedtype Wrapped: Comparable
}

extension Optional: OptionalQueryComparable where Wrapped: Comparable & _PersistableInsideOptional {}

/// String options of RealmSwift's type-safe queries.
public struct StringOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// The options whose bits are `rawValue`.
    ///
    /// - Parameter rawValue: The options' bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Letters compare without regard to case (`[c]` in a predicate string).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Letters compare without regard to diacritics (`[d]` in a predicate string).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// The types whose queries take `contains`, `starts(with:)`, `ends(with:)`, `equals` and
/// `notEquals` (RealmSwift's `_QueryBinary`): `String` and `Data`, optional or not.
public protocol _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary {}

/// The types whose queries also take `like` (RealmSwift's `_QueryString`): `String`,
/// optional or not.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}

extension Query where T: _QueryBinary {
    /// Whether the string (or bytes) contains `value` (`CONTAINS`).
    ///
    /// - Parameters:
    ///   - value: The substring to look for.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The comparison.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> { string(.contains, value, options) }
    /// Whether the string (or bytes) starts with `value` (`BEGINSWITH`).
    ///
    /// - Parameters:
    ///   - value: The prefix.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The comparison.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> { string(.beginsWith, value, options) }
    /// Whether the string (or bytes) ends with `value` (`ENDSWITH`).
    ///
    /// - Parameters:
    ///   - value: The suffix.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The comparison.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> { string(.endsWith, value, options) }
    /// Whether the string (or bytes) equals `value` under `options` (`==[c]`, `==[d]`).
    ///
    /// - Parameters:
    ///   - value: The string to compare with.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The comparison.
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> { string(.equal, value, options) }
    /// Whether the string (or bytes) differs from `value` under `options` (`!=[c]`, `!=[d]`).
    ///
    /// - Parameters:
    ///   - value: The string to compare with.
    ///   - options: Case and diacritic insensitivity.
    /// - Returns: The comparison.
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> { string(.notEqual, value, options) }

    fileprivate func string(_ op: QueryComparison.Operator, _ value: T, _ options: StringOptions) -> Query<Bool> {
        predicate(op, value, caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive))
    }
}

extension Query where T: _QueryString {
    /// `LIKE`: `*` matches any run of characters, `?` one character.
    ///
    /// - Parameters:
    ///   - value: The pattern, matched against the whole string.
    ///   - caseInsensitive: Whether letters match without regard to case.
    /// - Returns: The comparison.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.like, value, caseInsensitive ? .caseInsensitive : [])
    }
}

// MARK: Lists

extension Query where T: QueryCollection {
    /// The number of elements of a list or linking objects.
    public var count: Query<Int> {
        Query<Int>(realm: realm, path: path, aggregate: "count")
    }

    /// Whether the list holds a value.
    ///
    /// - Parameter value: An element: an object of the list's class, or a value of its type.
    /// - Returns: The comparison.
    public func contains(_ value: T.QueryElement) -> Query<Bool> { predicate(.equal, value, quantifier: .any) }

    /// Whether the list holds any of some values.
    ///
    /// - Parameter values: The elements to look for.
    /// - Returns: The comparison.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.QueryElement {
        predicate(.in, Array(values), quantifier: .any)
    }

    /// The smallest element of a list of numbers (`@min`).
    public var min: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "min") }
    /// The largest element of a list of numbers (`@max`).
    public var max: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "max") }
    /// The total of a list of numbers (`@sum`).
    public var sum: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "sum") }
    /// The mean of a list of numbers (`@avg`).
    public var avg: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "avg") }
}

// A property of the objects of a list, set or linking objects, aggregated over them:
// `$0.dogs.age.avg > 3` (`dogs.@avg.age`), as RealmSwift writes it. On a property that is
// not reached through a collection, the query is refused as `@avg` on a single value is.

extension Query where T: AddableType {
    /// The smallest value of the property over the objects of a collection (`@min`).
    public var min: Query<T> { Query<T>(realm: realm, path: path, aggregate: "min") }
    /// The largest value of the property over the objects of a collection (`@max`).
    public var max: Query<T> { Query<T>(realm: realm, path: path, aggregate: "max") }
    /// The total of the property over the objects of a collection (`@sum`).
    public var sum: Query<T> { Query<T>(realm: realm, path: path, aggregate: "sum") }
    /// The mean of the property over the objects of a collection (`@avg`).
    public var avg: Query<T> { Query<T>(realm: realm, path: path, aggregate: "avg") }
}

extension Query where T: _OptionalValue, T.Wrapped: AddableType {
    /// The smallest value of the property over the objects of a collection, nils left out.
    public var min: Query<T> { Query<T>(realm: realm, path: path, aggregate: "min") }
    /// The largest value of the property over the objects of a collection, nils left out.
    public var max: Query<T> { Query<T>(realm: realm, path: path, aggregate: "max") }
    /// The total of the property over the objects of a collection, nils left out.
    public var sum: Query<T> { Query<T>(realm: realm, path: path, aggregate: "sum") }
    /// The mean of the property over the objects of a collection, nils left out.
    public var avg: Query<T> { Query<T>(realm: realm, path: path, aggregate: "avg") }
}

/// `List`, `MutableSet`, `Map` and `LinkingObjects`, for the queries on collections.
public protocol QueryCollection {
    /// The type of the collection's elements, as queries compare them.
    associatedtype QueryElement
}

extension List: QueryCollection {
    /// The list's element type.
    public typealias QueryElement = Element
}

extension MutableSet: QueryCollection {
    /// The set's element type.
    public typealias QueryElement = Element
}

extension Map: QueryCollection {
    /// The map's value type: `contains`, `count` and the aggregates work on its values.
    public typealias QueryElement = Value
}

extension Query where T: RealmKeyedCollection {
    /// The value under `key` (`map['key']`); nil where the map has no such key.
    ///
    /// - Parameter key: A key of the map.
    public subscript(key: T.Key) -> Query<T.Value> {
        Query<T.Value>(realm: realm, path: path + ["[" + key._mapKeyString + "]"])
    }

    /// The map's keys (`map.@allKeys`): `$0.scores.keys.contains("a")`, or any key compared
    /// (`$0.scores.keys == "a"`).
    public var keys: Query<String> {
        Query<String>(realm: realm, path: path + ["@allKeys"])
    }

    /// The map's values (`map.@allValues`): a comparison holds when any value's does.
    public var values: Query<T.Value> {
        Query<T.Value>(realm: realm, path: path + ["@allValues"])
    }
}

extension Query where T == AnyRealmValue {
    /// The element at `position` of the list the value holds (`value[2]`); nil where it holds
    /// no list or a shorter one.
    ///
    /// - Parameter position: A position in the list, from 0.
    public subscript(position: Int) -> Query<AnyRealmValue> {
        require(position >= 0, "a position in a list is 0 or more, not \(position)")
        return Query<AnyRealmValue>(realm: realm, path: path + ["[$\(position)]"])
    }

    /// The value under `key` of the dictionary the value holds (`value['key']`); nil where it
    /// holds no dictionary or none with the key.
    ///
    /// - Parameter key: A key of the dictionary.
    public subscript(key: String) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(realm: realm, path: path + ["[" + key + "]"])
    }

    /// Every element (or dictionary value) of the collection the value holds (`value[*]`): a
    /// comparison holds when any one's does.
    public var any: Query<AnyRealmValue> {
        Query<AnyRealmValue>(realm: realm, path: path + ["[$*]"])
    }

    // Mixed values order as the query language orders them (numbers by value, other kinds
    // only against their own kind), as RealmSwift's `AnyRealmValue` queries do.

    /// Whether the value is greater than `rhs`.
    public static func > (lhs: Query, rhs: AnyRealmValue) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the value is greater than or equal to `rhs`.
    public static func >= (lhs: Query, rhs: AnyRealmValue) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the value is less than `rhs`.
    public static func < (lhs: Query, rhs: AnyRealmValue) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the value is less than or equal to `rhs`.
    public static func <= (lhs: Query, rhs: AnyRealmValue) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

extension LinkingObjects: QueryCollection {
    /// The linking class.
    public typealias QueryElement = Element
}

// MARK: Combining

extension Query where T == Bool {
    /// Both queries hold (`AND`).
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(realm: lhs.realm, path: [], node: .both(lhs.booleanNode, rhs.booleanNode))
    }

    /// Either query holds (`OR`).
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(realm: lhs.realm, path: [], node: .either(lhs.booleanNode, rhs.booleanNode))
    }

    /// The query does not hold (`NOT`).
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        Query(realm: query.realm, path: [], node: .not(query.booleanNode))
    }

    /// How many objects of a list this query holds for, as a subquery: every property it
    /// compares must be reached through that list.
    ///
    ///     people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count >= 2 }
    ///     // SUBQUERY(dogs, $d, $d.age > 5 AND $d.name BEGINSWITH 'R').@count >= 2
    public var count: Query<Int> {
        Query<Int>(realm: realm, path: [], aggregate: Query<Int>.subqueryCount, node: booleanNode)
    }

    /// The predicate: a comparison built, or a `Bool` property compared with `true`.
    var booleanNode: QueryNode {
        if let node { return node }
        return .comparison(QueryComparison(
            quantifier: nil, left: operand, op: .equal, right: .value(.bool(true), position: 0), position: 0))
    }
}

extension Results {
    /// The objects for which the type-safe query `block` holds:
    ///
    ///     dogs.where { $0.age > 1 && $0.owner.name == "Ana" }
    ///
    /// - Parameter block: Builds the predicate from the objects' properties.
    /// - Returns: Live results, in this collection's order.
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        handle.checkThread()
        let root = Query<Element>(realm: handle, path: [])
        let node = block(root).booleanNode
        do {
            let bound = try QueryBinder(schemas: handle.objectSchemas).bind(node, to: info.schema)
            return try filter(bound: bound)
        } catch {
            stop("\(error)")
        }
    }
}
