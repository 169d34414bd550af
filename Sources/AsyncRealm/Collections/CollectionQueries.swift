import Foundation

/// The queries of `List`, `MutableSet` and `LinkingObjects` of objects: they run on the collection's objects
/// as `Results` do on a class, keeping the collection's order (and a list's duplicates).
protocol ObjectCollectionQuerying {
    associatedtype Element: Object
    /// The collection's objects as results.
    var queryResults: Results<Element> { get }
    /// The objects of an unmanaged collection, which aggregates read one by one (as RealmSwift
    /// does); nil for a managed one.
    var unmanagedObjects: [Element]? { get }
}

extension ObjectCollectionQuerying {
    /// The objects that match `predicate`.
    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> {
        try queryResults.filter(predicate)
    }

    /// The objects for which the type-safe query holds.
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryResults.where(block)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        queryResults.sorted(by: descriptors)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        queryResults.distinct(by: keyPaths)
    }

    /// The smallest value of `property` among the objects, nil if there is none (read object
    /// by object for an unmanaged list).
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Element>().min(of: objects, property: property) }
        return queryResults.min(ofProperty: property)
    }

    /// The largest value of `property` among the objects, nil if there is none (read object
    /// by object for an unmanaged list).
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Element>().max(of: objects, property: property) }
        return queryResults.max(ofProperty: property)
    }

    /// The sum of `property` over the objects, nil values left out; zero if there are none.
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        if let objects = unmanagedObjects { return UnmanagedQuery<Element>().sum(of: objects, property: property) }
        return queryResults.sum(ofProperty: property)
    }

    /// The mean of `property` over the objects, nil values left out; nil if there are none.
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Element>().average(of: objects, property: property) }
        return queryResults.average(ofProperty: property)
    }
}

extension List: ObjectCollectionQuerying where Element: Object {
    var unmanagedObjects: [Element]? { managedLocation == nil ? Array(self) : nil }

    var queryResults: Results<Element> {
        guard let location = managedLocation else {
            stop("filter, sorted and distinct need a managed list, as in RealmSwift; add its object to a realm first (index(matching:) and the aggregates work on an unmanaged list)")
        }
        return location.results(of: Element.self)
    }
}

extension MutableSet: ObjectCollectionQuerying where Element: Object {
    var unmanagedObjects: [Element]? { managedLocation == nil ? Array(self) : nil }

    var queryResults: Results<Element> {
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

extension LinkingObjects: ObjectCollectionQuerying {
    var unmanagedObjects: [Element]? { realm == nil ? [] : nil }

    var queryResults: Results<Element> { liveResults }
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
        try queryResults.filter(predicate)
    }
}

extension MutableSet where Element: Object {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    ///
    /// - Parameter predicate: A `#Predicate` over the element class.
    /// - Returns: Live results, in the set's order.
    /// - Throws: `invalidQuery` naming an expression that has no query form.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try queryResults.filter(predicate)
    }
}

extension LinkingObjects {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    ///
    /// - Parameter predicate: A `#Predicate` over the linking class.
    /// - Returns: Live results.
    /// - Throws: `invalidQuery` naming an expression that has no query form.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try queryResults.filter(predicate)
    }
}
