import Foundation

/// The queries RealmSwift's `Map` of objects has: its objects sorted, filtered and aggregated,
/// as a list's are. They run on the objects the map holds, in the order of its keys, nil values
/// left out; the results are of the object class (`Results<Dog>` for a `Map<String, Dog?>`),
/// since results hold objects here.
extension Map where Value: _OptionalValue, Value.Wrapped: Object {
    /// The objects as live results, in the order of the map's keys.
    private var objectResults: Results<Value.Wrapped> {
        guard let location = managedLocation else {
            stop("filter and sorted need a managed map, as in RealmSwift; add its object to a realm first (the aggregates work on an unmanaged map)")
        }
        return location.results(of: Value.Wrapped.self)
    }

    /// The objects of an unmanaged map, which aggregates read one by one; nil for a managed one.
    private var unmanagedObjects: [Value.Wrapped]? {
        managedLocation == nil ? values.compactMap(\._wrapped) : nil
    }

    /// The objects the map holds that match a predicate string.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, with `%@` or `$0`, `$1`... for arguments.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: Live results, in the order of the map's keys.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Value.Wrapped> {
        do {
            return try objectResults.filter(RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The objects the map holds for which the type-safe query holds.
    ///
    /// - Parameter block: Builds the predicate from the objects' properties.
    /// - Returns: Live results, in the order of the map's keys.
    public func `where`(_ block: (Query<Value.Wrapped>) -> Query<Bool>) -> Results<Value.Wrapped> {
        objectResults.where(block)
    }

    /// The objects the map holds, sorted by one of their properties.
    ///
    /// - Parameters:
    ///   - keyPath: A property of the objects, or a key path through to-one links.
    ///   - ascending: Whether the smallest value comes first; nil sorts before every value.
    /// - Returns: Live results in that order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value.Wrapped> {
        objectResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects the map holds, sorted by several of their properties.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Value.Wrapped> where S.Element == SortDescriptor {
        objectResults.sorted(by: descriptors)
    }

    /// The smallest value of a property among the objects, nil values left out.
    ///
    /// - Parameter property: The name of a numeric or `Date` property of the objects.
    /// - Returns: The smallest value, or nil when there are none.
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Value.Wrapped>().min(of: objects, property: property) }
        return objectResults.min(ofProperty: property)
    }

    /// The largest value of a property among the objects, nil values left out.
    ///
    /// - Parameter property: The name of a numeric or `Date` property of the objects.
    /// - Returns: The largest value, or nil when there are none.
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Value.Wrapped>().max(of: objects, property: property) }
        return objectResults.max(ofProperty: property)
    }

    /// The sum of a numeric property over the objects, nil values left out; zero for none.
    ///
    /// - Parameter property: The name of a numeric property of the objects.
    /// - Returns: The sum.
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        if let objects = unmanagedObjects { return UnmanagedQuery<Value.Wrapped>().sum(of: objects, property: property) }
        return objectResults.sum(ofProperty: property)
    }

    /// The mean of a numeric property over the objects, nil values left out.
    ///
    /// - Parameter property: The name of a numeric property of the objects.
    /// - Returns: The mean, or nil when there are no values.
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        if let objects = unmanagedObjects { return UnmanagedQuery<Value.Wrapped>().average(of: objects, property: property) }
        return objectResults.average(ofProperty: property)
    }
}
