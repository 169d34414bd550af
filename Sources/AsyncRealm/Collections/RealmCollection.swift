import Foundation

/// What `Results`, `List`, `MutableSet` and `LinkingObjects` of objects have in common, as RealmSwift's
/// `RealmCollection`: random access, queries, sorting, aggregates, key-value access, and (from
/// `ThreadConfined`) `freeze()`, `thaw()` and `isFrozen`.
public protocol RealmCollection<Element>: RandomAccessCollection, ThreadConfined where Element: Object, Index == Int {
    /// The realm the objects belong to; nil for an unmanaged list.
    var realm: Realm? { get }

    /// The objects of the collection that match `predicate`, in the collection's order.
    ///
    /// - Parameter predicate: A parsed predicate (see `Docs/Queries.md`).
    /// - Returns: Live results that follow the collection as it changes.
    /// - Throws: `invalidQuery` when the predicate names a property the objects do not have or
    ///   compares values that do not compare.
    func filter(_ predicate: RealmPredicate) throws -> Results<Element>

    /// The objects for which the type-safe query `block` holds.
    ///
    /// - Parameter block: Builds the predicate from the objects' properties:
    ///   `{ $0.age > 1 && $0.name.starts(with: "R") }`.
    /// - Returns: Live results, in the collection's order.
    func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element>

    /// The objects sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: A property, or a key path through to-one links (`"owner.name"`).
    ///   - ascending: Whether the smallest value comes first; nil sorts before every value.
    /// - Returns: Live results in that order (stable: ties keep the collection's order).
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>

    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    func sorted(by descriptors: [SortDescriptor]) -> Results<Element>

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    func distinct(by keyPaths: [String]) -> Results<Element>

    /// The smallest value of a property among the objects, nil values left out.
    ///
    /// - Parameter property: The name of an `Int`, `Float`, `Double`, `Decimal` or `Date` property.
    /// - Returns: The smallest value, or nil when there are no values.
    func min<T: _Persistable>(ofProperty property: String) -> T?

    /// The largest value of a property among the objects, nil values left out.
    ///
    /// - Parameter property: The name of an `Int`, `Float`, `Double`, `Decimal` or `Date` property.
    /// - Returns: The largest value, or nil when there are no values.
    func max<T: _Persistable>(ofProperty property: String) -> T?

    /// The sum of a numeric property over the objects, nil values left out.
    ///
    /// - Parameter property: The name of an `Int`, `Float`, `Double` or `Decimal` property.
    /// - Returns: The sum; zero for no values.
    func sum<T: _Persistable>(ofProperty property: String) -> T

    /// The mean of a numeric property over the objects, nil values left out.
    ///
    /// - Parameter property: The name of an `Int`, `Float`, `Double` or `Decimal` property.
    /// - Returns: The mean, or nil when there are no values.
    func average<T: _Persistable>(ofProperty property: String) -> T?
}

extension RealmCollection {
    /// The objects sorted by one property, smallest first: `sorted(byKeyPath:ascending:)` with
    /// RealmSwift's default, for every collection (a list's, a set's and linking objects' own
    /// forms are not seen outside this module).
    ///
    /// - Parameter keyPath: A property, or a key path through to-one links (`"owner.name"`).
    /// - Returns: Live results in that order.
    public func sorted(byKeyPath keyPath: String) -> Results<Element> {
        sorted(byKeyPath: keyPath, ascending: true)
    }

    /// The objects that match a predicate string, as RealmSwift's `filter(_:_:)`.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, with `%@` or `$0`, `$1`... for arguments.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: Live results, in the collection's order.
    /// - Important: An invalid predicate stops the program with the parser's message; use
    ///   `filter(_: RealmPredicate)` to get it as a thrown error instead.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        do {
            return try filter(RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The position of an object in the collection.
    ///
    /// - Parameter object: An object of this collection's realm.
    /// - Returns: The position of its first occurrence (the same stored object), nil if the
    ///   collection does not hold it.
    public func index(of object: Element) -> Int? {
        firstIndex { $0.isSameObject(as: object) }
    }

    /// The position of the first object matching a predicate string.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, with `%@` or `$0`, `$1`... for arguments.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: The position, nil if no object matches.
    /// - Important: An invalid predicate stops the program with the parser's message.
    public func index(matching predicateFormat: String, _ arguments: Any...) -> Int? {
        do {
            return try index(matching: RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The position of the first object matching `predicate`. An unmanaged list evaluates it
    /// on its objects, as RealmSwift does.
    ///
    /// - Parameter predicate: A parsed predicate.
    /// - Returns: The position, nil if no object matches.
    /// - Throws: `invalidQuery` when the predicate does not fit the objects' class.
    public func index(matching predicate: RealmPredicate) throws -> Int? {
        if realm == nil { return try UnmanagedQuery<Element>().firstIndex(in: Array(self), matching: predicate) }
        return firstIndex(among: try filter(predicate))
    }

    /// The position of the first object for which the type-safe query holds. An unmanaged list
    /// evaluates it on its objects, as RealmSwift does.
    ///
    /// - Parameter block: Builds the predicate from the objects' properties.
    /// - Returns: The position, nil if no object matches.
    public func index(matching block: (Query<Element>) -> Query<Bool>) -> Int? {
        if realm == nil { return UnmanagedQuery<Element>().firstIndex(in: Array(self), where: block) }
        return firstIndex(among: self.where(block))
    }

    /// The position of the first object that `matching` holds: one set lookup per object
    /// (objects hash by stored identity), not a search of `matching` each.
    private func firstIndex(among matching: Results<Element>) -> Int? {
        let found = Set<Object>(matching.map { $0 as Object })
        return firstIndex { found.contains($0) }
    }

    /// A property of every object, in order (key-value coding on collections, as RealmSwift):
    /// an array `[Any?]`, which casts to the property's type (`as? [String]`, `as? [Int?]`).
    /// The same as `value(forKeyPath:)`, so `"@count"` and the other operators answer here too.
    ///
    /// - Parameter key: A property name, or `self` for the objects themselves.
    /// - Returns: One value per object, nil where the object's value is nil.
    public func value(forKey key: String) -> Any? {
        value(forKeyPath: key)
    }

    /// What every object holds at a key path of property names joined by dots, in order (see
    /// `Object.value(forKeyPath:)`), or a collection operator's answer: `"@count"`,
    /// `"@sum.age"`, `"@avg.age"`, `"@min.age"`, `"@max.age"`, `"@unionOfObjects.name"`,
    /// `"@distinctUnionOfObjects.name"` (see `KeyValueOperator`).
    ///
    /// - Important: An unknown property or operator stops with a message naming it.
    ///
    /// - Parameter keyPath: Property names joined by dots, such as `"owner.name"`, or an
    ///   operator and the property it aggregates.
    /// - Returns: One value per object (an `[Any?]`, nil where the path reaches nil), or the
    ///   operator's value: an `Int` count, a sum typed as the property's numbers, an average as
    ///   a `Double` (nil for no objects), the smallest or largest value.
    public func value(forKeyPath keyPath: String) -> Any? {
        // The count without making an accessor per object.
        if keyPath == "@count" { return count }
        return Object.value(atPath: keyPath.split(separator: ".", omittingEmptySubsequences: false)[...], of: Array(self))
    }

    /// Sets a property of every object; call inside a write transaction.
    ///
    /// - Parameters:
    ///   - value: The new value, of the property's type (or nil for an optional property).
    ///   - key: The property's name.
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object.setValue(value, forKey: key) }
    }

    /// The objects at some positions.
    ///
    /// - Parameter indexes: Positions in the collection.
    /// - Returns: The objects at those positions, in ascending order of position.
    public func objects(at indexes: IndexSet) -> [Element] {
        indexes.map { self[$0] }
    }
}

extension Results: RealmCollection {
    /// The realm the results read.
    public var realm: Realm? { handle }

    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        sorting(descriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    public func distinct(by keyPaths: [String]) -> Results<Element> {
        distinguishing(keyPaths)
    }
}

extension List: RealmCollection where Element: Object {
    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        _queryResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    public func distinct(by keyPaths: [String]) -> Results<Element> {
        _queryResults.distinct(by: keyPaths)
    }
}

extension MutableSet: RealmCollection where Element: Object {
    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        _queryResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the set's order.
    public func distinct(by keyPaths: [String]) -> Results<Element> {
        _queryResults.distinct(by: keyPaths)
    }
}

extension LinkingObjects: RealmCollection {
    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        _queryResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    public func distinct(by keyPaths: [String]) -> Results<Element> {
        _queryResults.distinct(by: keyPaths)
    }
}

/// A type-erased `RealmCollection`: `Results`, a `List`, a `MutableSet` or `LinkingObjects`
/// behind one type.
public struct AnyRealmCollection<Element: Object>: RealmCollection {
    private let base: any RealmCollection<Element>

    /// Wraps a collection.
    ///
    /// - Parameter base: `Results`, a `List`, a `MutableSet` or `LinkingObjects` of objects.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = base
    }

    public var startIndex: Int { base.startIndex }
    public var endIndex: Int { base.endIndex }
    public subscript(position: Int) -> Element { base[position] }
    public var realm: Realm? { base.realm }

    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> { try base.filter(predicate) }
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element> { base.where(block) }
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> { base.sorted(byKeyPath: keyPath, ascending: ascending) }
    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> { base.sorted(by: descriptors) }
    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    public func distinct(by keyPaths: [String]) -> Results<Element> { base.distinct(by: keyPaths) }
    public func min<T: _Persistable>(ofProperty property: String) -> T? { base.min(ofProperty: property) }
    public func max<T: _Persistable>(ofProperty property: String) -> T? { base.max(ofProperty: property) }
    public func sum<T: _Persistable>(ofProperty property: String) -> T { base.sum(ofProperty: property) }
    public func average<T: _Persistable>(ofProperty property: String) -> T? { base.average(ofProperty: property) }

    public var _confinedDescription: _ConfinedDescription { base._confinedDescription }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> AnyRealmCollection? {
        switch description.kind {
        case .results: Results<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .list: List<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .linking: LinkingObjects<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .object, .sectioned, .section, .nested: nil
        }
    }
}
