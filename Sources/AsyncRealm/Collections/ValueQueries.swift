import StorageEngine

/// RealmSwift's predicate queries on a `List` or `MutableSet` of values: `filter("self > 3")`,
/// `where { $0 > 3 }`, `index(matching:)` and `distinct()`.
///
/// Each is answered over the elements as they are when it is called, and `filter`, `where` and
/// `distinct` return an array of them (RealmSwift's return live `Results` of values; `Results`
/// holds objects here). The predicate names the element `self`, and is bound and evaluated as a
/// query on objects is, so it compares the same way: strings by their UTF-8 bytes (`[c]` and
/// `[d]` as in queries on objects), numbers of any type with each other, nil with `== nil`.
///
///     let aWords = person.tags.filter("self BEGINSWITH[c] %@", "a")   // [String]
///     let firstBig = person.scores.index(matching: "self > 90")       // Int?
///
/// (A `List` or `MutableSet` of objects has `RealmCollection`'s `filter`, which returns live
/// `Results`; these are its fallback only where an array is asked for.)
extension ValueCollectionAggregates where Self: _CollectionBase, Element: RealmCollectionValue {
    /// The elements a predicate holds for, in the collection's order, as RealmSwift's
    /// `filter(_:_:)` on a collection of values.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, naming the element `self` (`"self > 3"`), with `%@`
    ///     or `$0`, `$1`... for arguments.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: The matching elements as they are now.
    /// - Important: An invalid predicate stops the program with the parser's message; use
    ///   `filter(_: RealmPredicate)` to get it as a thrown error instead.
    @_disfavoredOverload
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> [Element] {
        do {
            return try filter(RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The elements a predicate holds for, in the collection's order.
    ///
    /// - Parameter predicate: A predicate naming the element `self`, without `SORT`, `DISTINCT`
    ///   or `LIMIT`.
    /// - Returns: The matching elements as they are now.
    /// - Throws: `RealmError` with code `invalidQuery` if the predicate does not fit the
    ///   elements' type.
    @_disfavoredOverload
    public func filter(_ predicate: RealmPredicate) throws -> [Element] {
        let matcher = try ElementMatcher<Element>(predicate, in: realm)
        return filter { matcher.matches($0) }
    }

    /// The elements a type-safe query holds for, in the collection's order, as RealmSwift's
    /// `where` on a collection of values: `$0` is the element.
    ///
    ///     let high = scores.where { $0 > 90 }
    ///     let aWords = tags.where { $0.starts(with: "a", options: .caseInsensitive) }
    ///
    /// - Parameter block: Builds the query from the element.
    /// - Returns: The matching elements as they are now.
    @_disfavoredOverload
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> [Element] {
        let queryRealm = ElementMatcher<Element>.realm(for: realm)
        let node = block(Query<Element>(realm: queryRealm, path: ElementMatcher<Element>.elementPath)).booleanNode
        do {
            let matcher = try ElementMatcher<Element>(node, in: realm)
            return filter { matcher.matches($0) }
        } catch {
            stop("\(error)")
        }
    }

    /// The position of the first element a predicate holds for, as RealmSwift's
    /// `index(matching:_:)` on a collection of values.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, naming the element `self`.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: The position, or nil if the predicate holds for no element.
    @_disfavoredOverload
    public func index(matching predicateFormat: String, _ arguments: Any...) -> Int? {
        do {
            let matcher = try ElementMatcher<Element>(RealmPredicate(predicateFormat, arguments: arguments), in: realm)
            return enumerated().first { matcher.matches($0.element) }?.offset
        } catch {
            stop("\(error)")
        }
    }

    /// Each element once, at its first place, as RealmSwift's `distinct()` on a collection of
    /// values. Values are told apart as `==` in a query tells them: strings by their UTF-8
    /// bytes, any NaN equal to another, `-0.0` equal to `0.0`; objects by the stored object.
    ///
    /// - Returns: The elements, without repeats, as they are now.
    public func distinct() -> [Element] {
        if Element._persistedKind.type == .object {
            var seen = Set<Element>()
            return filter { seen.insert($0).inserted }
        }
        let realm = ElementMatcher<Element>.realm(for: realm)
        let type = Element._persistedKind.type
        var seen = Set<DistinctValue>()
        return filter { element in
            seen.insert(DistinctValue(scalar: QueryScalar(stored: element._toStorage(realm: realm).value, type: type))).inserted
        }
    }
}

/// A predicate bound to the elements of a collection of values: each element is the one
/// property, `self`, of an object of a class of its own, which the query evaluator reads as it
/// reads a stored row. An element that is an object is matched as the object it is, in the
/// collection's realm.
struct ElementMatcher<Element: RealmCollectionValue> {
    private let realm: Realm
    private let schema: ObjectSchema
    private let bound: BoundPredicate
    private let evaluator: QueryEvaluator
    /// Whether the elements are objects, matched through their accessors: decided once, where
    /// a cast of each element to `Object` cost a failed dynamic cast per value.
    private let elementsAreObjects: Bool

    init(_ predicate: RealmPredicate, in collectionRealm: Realm?) throws {
        guard predicate.modifiers.steps.isEmpty else {
            throw RealmError(code: .invalidQuery, message: "SORT, DISTINCT and LIMIT are for results of objects; filter a collection of values with a plain predicate, then sort or take the distinct values")
        }
        try self.init(predicate.node, in: collectionRealm)
    }

    /// The key path of the element in a type-safe query: the element's own property, `self`, or
    /// for an object the object itself.
    static var elementPath: [String] { Element._persistedKind.type == .object ? [] : ["self"] }

    init(_ node: QueryNode, in collectionRealm: Realm?) throws {
        let kind = Element._persistedKind
        var schemas: [String: ObjectSchema]
        elementsAreObjects = kind.type == .object
        if elementsAreObjects {
            let className = kind.objectType?.className() ?? "\(Element.self)"
            guard let collectionRealm, let objectSchema = collectionRealm.objectSchemas[className] else {
                throw RealmError(code: .invalidQuery, message: "a predicate on a collection of '\(className)' objects needs a managed collection; filter an unmanaged one in Swift")
            }
            realm = collectionRealm
            schema = objectSchema
            schemas = collectionRealm.objectSchemas
        } else {
            realm = Self.realm(for: collectionRealm)
            let element = Property(
                name: "self", type: kind.type, isOptional: kind.isOptional, isArray: false, isPrimary: false, isIndexed: false,
                objectClassName: nil, linkOriginPropertyName: nil)
            // Named as no class can be (a space), so that it stands in for none of the realm's.
            schema = ObjectSchema(className: "\(Element.self) values", properties: [element])
            schemas = realm.objectSchemas
            schemas[schema.className] = schema
        }
        bound = try QueryBinder(schemas: schemas).bind(node, to: schema)
        evaluator = QueryEvaluator(realm: realm)
    }

    func matches(_ element: Element) -> Bool {
        if elementsAreObjects {
            return evaluator.matches(bound, QueryEvaluator.ObjectRow(accessor: element as! Object, realm: realm))
        }
        return evaluator.matches(bound, QueryEvaluator.ObjectRow(schema: schema, key: 0, row: [element._toStorage(realm: realm).value]))
    }

    /// The realm whose values the elements are converted and compared with: the collection's,
    /// or for an unmanaged collection an empty in-memory realm of this thread (values of the
    /// common types need no realm of their own to be compared).
    static func realm(for collectionRealm: Realm?) -> Realm {
        if let collectionRealm { return collectionRealm }
        do {
            return try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "AsyncRealm.value-queries", objectTypes: []))
        } catch {
            stop("cannot query an unmanaged collection of values: \(error)")
        }
    }
}
