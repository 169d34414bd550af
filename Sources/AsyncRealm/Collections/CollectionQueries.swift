import Foundation

/// The queries of `List`, `MutableSet` and `LinkingObjects` of objects: they run on the collection's objects
/// as `Results` do on a class, keeping the collection's order (and a list's duplicates).
///
/// Public only so that other modules see its conformances, and their condition: through an
/// internal protocol a module importing AsyncRealm found these public members on every `List`,
/// unchecked against `Element: Object`, so that `List<String>.where { }` compiled there and built
/// a `Results<String>`. Not for conformances outside AsyncRealm.
public protocol _ObjectCollectionQuerying {
    associatedtype Element: Object
    /// The collection's objects as results.
    var _queryResults: Results<Element> { get }
    /// The objects of an unmanaged collection, which aggregates read one by one (as RealmSwift
    /// does); nil for a managed one.
    var _unmanagedObjects: [Element]? { get }
}

extension _ObjectCollectionQuerying {
    /// The objects that match `predicate`, in the collection's order.
    ///
    /// - Parameter predicate: A parsed predicate over the element class.
    /// - Returns: Live results.
    /// - Throws: `RealmError` with code `invalidQuery` if the predicate does not fit the class.
    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> {
        try _queryResults.filter(predicate)
    }

    /// The objects for which the type-safe query holds, in the collection's order.
    ///
    /// - Parameter block: Builds the query from the object.
    /// - Returns: Live results.
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        _queryResults.where(block)
    }

    /// The objects sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: A property, or a key path through to-one links (`"owner.name"`).
    ///   - ascending: Whether the smallest comes first (nil first, as Realm sorts it).
    /// - Returns: Live results in that order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several properties, the first deciding and the next breaking ties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        _queryResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results, in the collection's order.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        _queryResults.distinct(by: keyPaths)
    }

    /// The smallest value of `property` among the objects (read object by object for an
    /// unmanaged list).
    ///
    /// - Parameter property: A property of one value per object.
    /// - Returns: The smallest value, nil values left out; nil if there is none.
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = _unmanagedObjects { return UnmanagedQuery<Element>().min(of: objects, property: property) }
        return _queryResults.min(ofProperty: property)
    }

    /// The largest value of `property` among the objects (read object by object for an
    /// unmanaged list).
    ///
    /// - Parameter property: A property of one value per object.
    /// - Returns: The largest value, nil values left out; nil if there is none.
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = _unmanagedObjects { return UnmanagedQuery<Element>().max(of: objects, property: property) }
        return _queryResults.max(ofProperty: property)
    }

    /// The sum of `property` over the objects.
    ///
    /// - Parameter property: A numeric property of one value per object.
    /// - Returns: The sum, nil values left out; zero if there are none.
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        if let objects = _unmanagedObjects { return UnmanagedQuery<Element>().sum(of: objects, property: property) }
        return _queryResults.sum(ofProperty: property)
    }

    /// The mean of `property` over the objects.
    ///
    /// - Parameter property: A numeric property of one value per object.
    /// - Returns: The mean, nil values left out; nil if there are none.
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = _unmanagedObjects { return UnmanagedQuery<Element>().average(of: objects, property: property) }
        return _queryResults.average(ofProperty: property)
    }
}

extension List: _ObjectCollectionQuerying where Element: Object {
    public var _unmanagedObjects: [Element]? { managedLocation == nil ? Array(self) : nil }

    public var _queryResults: Results<Element> {
        guard let location = managedLocation else {
            stop("filter, sorted and distinct need a managed list, as in RealmSwift; add its object to a realm first (index(matching:) and the aggregates work on an unmanaged list)")
        }
        return location.results(of: Element.self)
    }
}

extension MutableSet: _ObjectCollectionQuerying where Element: Object {
    public var _unmanagedObjects: [Element]? { managedLocation == nil ? Array(self) : nil }

    public var _queryResults: Results<Element> {
        guard let location = managedLocation else {
            stop("filter, sorted and distinct need a managed set, as in RealmSwift; add its object to a realm first (index(matching:) and the aggregates work on an unmanaged set)")
        }
        return location.results(of: Element.self)
    }
}

extension ManagedListLocation {
    /// The objects of the list or set stored here, as live results in its order.
    func results<Element: Object>(of _: Element.Type) -> Results<Element> {
        // The objects of a collection read by property name are `DynamicObject`s of its class.
        let info = Element.self == DynamicObject.self ? realm.dynamicClassInfo(targetClassName ?? "") : realm.classInfoOrStop(for: Element.self)
        return Results(realm: realm, info: info,
                base: .list(ownerClass: owner.info.schema.className, owner: owner.key, column: column))
    }
}

extension LinkingObjects: _ObjectCollectionQuerying {
    public var _unmanagedObjects: [Element]? { realm == nil ? [] : nil }

    public var _queryResults: Results<Element> { liveResults }
}

// Foundation's `Sequence.filter(_: Predicate)` would be as good a match from a protocol
// extension; declared on the types themselves, these win.
extension List where Element: Object {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    ///
    /// - Parameter predicate: A `#Predicate` over the element class.
    /// - Returns: Live results, in the list's order.
    /// - Throws: `invalidQuery` naming an expression that has no query form.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try _queryResults.filter(predicate)
    }
}

extension MutableSet where Element: Object {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    ///
    /// - Parameter predicate: A `#Predicate` over the element class.
    /// - Returns: Live results, in the set's order.
    /// - Throws: `invalidQuery` naming an expression that has no query form.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try _queryResults.filter(predicate)
    }
}

extension LinkingObjects {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    ///
    /// - Parameter predicate: A `#Predicate` over the linking class.
    /// - Returns: Live results.
    /// - Throws: `invalidQuery` naming an expression that has no query form.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try _queryResults.filter(predicate)
    }
}
