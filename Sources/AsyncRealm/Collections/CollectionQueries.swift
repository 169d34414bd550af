import Foundation

/// The queries of `List` and `LinkingObjects` of objects: they run on the collection's objects
/// as `Results` do on a class, keeping the collection's order (and a list's duplicates).
protocol ObjectCollectionQuerying {
    associatedtype Element: Object
    /// The collection's objects as results.
    var queryResults: Results<Element> { get }
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

    public func min<T: _Persistable>(ofProperty property: String) -> T? { queryResults.min(ofProperty: property) }
    public func max<T: _Persistable>(ofProperty property: String) -> T? { queryResults.max(ofProperty: property) }
    public func sum<T: _Persistable>(ofProperty property: String) -> T { queryResults.sum(ofProperty: property) }
    public func average<T: _Persistable>(ofProperty property: String) -> T? { queryResults.average(ofProperty: property) }
}

extension List: ObjectCollectionQuerying where Element: Object {
    var queryResults: Results<Element> {
        guard let location = managedLocation else {
            stop("only a managed list can be queried; add its object to a realm first")
        }
        let realm = location.realm
        let owner = location.owner
        return Results(realm: realm, info: realm.classInfoOrStop(for: Element.self),
                       base: .list(ownerClass: owner.info.schema.className, owner: owner.key, column: location.column))
    }
}

extension LinkingObjects: ObjectCollectionQuerying {
    var queryResults: Results<Element> { liveResults }
}

// Foundation's `Sequence.filter(_: Predicate)` would be as good a match from a protocol
// extension; declared on the types themselves, these win.
extension List where Element: Object {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try queryResults.filter(predicate)
    }
}

extension LinkingObjects {
    /// The objects for which Foundation's `predicate` holds, as `Results`.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        try queryResults.filter(predicate)
    }
}
