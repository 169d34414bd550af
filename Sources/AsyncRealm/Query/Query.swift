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

    fileprivate var operand: QueryOperand {
        .keyPath(path, aggregate: aggregate, aggregateProperty: [], position: 0)
    }

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
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        let name = realm.propertyName(of: keyPath, in: T.self)
        return Query<V>(realm: realm, path: path + [name])
    }
}

extension Query {
    /// Members of the object an optional link reaches: `$0.owner.name`.
    public subscript<V, Wrapped: Object>(dynamicMember keyPath: KeyPath<Wrapped, V>) -> Query<V> where T == Wrapped? {
        let name = realm.propertyName(of: keyPath, in: Wrapped.self)
        return Query<V>(realm: realm, path: path + [name])
    }

    /// Members of the objects of a list: `$0.dogs.age > 5` holds when any dog's age does.
    public subscript<V, Element: Object>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V> where T == List<Element> {
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return Query<V>(realm: realm, path: path + [name])
    }

    /// Members of linking objects: `$0.owners.name == "Ana"`.
    public subscript<V, Element: Object>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V> where T == LinkingObjects<Element> {
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return Query<V>(realm: realm, path: path + [name])
    }
}

// MARK: Enums

extension Query where T: PersistableEnum {
    /// The enum's raw value, to compare with an `Int` or `String` or use string operations on:
    /// `$0.size.rawValue > 0`, `$0.colour.rawValue.starts(with: "r")`.
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(realm: realm, path: path, aggregate: aggregate) }
}

extension Query where T: OptionalPersistableEnum {
    /// The raw value of an optional enum, nil where the property is nil: `$0.colour.rawValue == "red"`.
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(realm: realm, path: path, aggregate: aggregate) }
}

/// Optional enums, whose queries reach the raw value with `rawValue`.
public protocol OptionalPersistableEnum {
    associatedtype Wrapped: PersistableEnum
}

extension Optional: OptionalPersistableEnum where Wrapped: PersistableEnum {}

// MARK: Comparisons

extension Query where T: _Persistable {
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.equal, rhs) }
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.notEqual, rhs) }

    /// Whether the value is one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        predicate(.in, Array(values))
    }
}

extension Query where T: _Persistable & Comparable {
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.less, rhs) }
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }

    /// Whether the value lies in `range` (BETWEEN).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        predicate(.between, [range.lowerBound, range.upperBound])
    }
}

extension Query where T: OptionalQueryComparable {
    public static func > (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    public static func >= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    public static func < (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.less, rhs) }
    public static func <= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

/// Optionals of comparable values, whose queries take ordering comparisons with a value.
public protocol OptionalQueryComparable {
    associatedtype Wrapped: Comparable
}

extension Optional: OptionalQueryComparable where Wrapped: Comparable & _PersistableInsideOptional {}

/// String options of RealmSwift's type-safe queries.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let caseInsensitive = StringOptions(rawValue: 1)
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

extension Query where T == String {
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> { string(.contains, value, options) }
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> { string(.beginsWith, value, options) }
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> { string(.endsWith, value, options) }
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> { string(.equal, value, options) }
    public func notEquals(_ value: String, options: StringOptions = []) -> Query<Bool> { string(.notEqual, value, options) }

    /// `LIKE`: `*` matches any run of characters, `?` one character.
    public func like(_ value: String, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.like, value, caseInsensitive ? .caseInsensitive : [])
    }

    private func string(_ op: QueryComparison.Operator, _ value: String, _ options: StringOptions) -> Query<Bool> {
        predicate(op, value, caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive))
    }
}

// MARK: Lists

extension Query where T: QueryCollection {
    /// The number of elements of a list or linking objects.
    public var count: Query<Int> {
        Query<Int>(realm: realm, path: path, aggregate: "count")
    }

    /// Whether the list holds `value`.
    public func contains(_ value: T.QueryElement) -> Query<Bool> { predicate(.equal, value, quantifier: .any) }

    /// Whether the list holds any of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.QueryElement {
        predicate(.in, Array(values), quantifier: .any)
    }

    /// The smallest, largest, total and mean of a list of numbers.
    public var min: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "min") }
    public var max: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "max") }
    public var sum: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "sum") }
    public var avg: Query<T.QueryElement> { Query<T.QueryElement>(realm: realm, path: path, aggregate: "avg") }
}

/// `List` and `LinkingObjects`, for the queries on collections.
public protocol QueryCollection {
    associatedtype QueryElement
}

extension List: QueryCollection {
    public typealias QueryElement = Element
}

extension LinkingObjects: QueryCollection {
    public typealias QueryElement = Element
}

// MARK: Combining

extension Query where T == Bool {
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(realm: lhs.realm, path: [], node: .both(lhs.booleanNode, rhs.booleanNode))
    }

    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query(realm: lhs.realm, path: [], node: .either(lhs.booleanNode, rhs.booleanNode))
    }

    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        Query(realm: query.realm, path: [], node: .not(query.booleanNode))
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
