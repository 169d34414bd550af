/// RealmSwift's Swift key-path spellings of the collection operations that name a property:
/// `sorted(by: \.age)`, `min(of: \.age)`, `distinct(by: [\.name])`. Each key path names one
/// `@Persisted` property of the element class.
extension RealmCollection {
    /// The objects sorted by the property `keyPath` names.
    ///
    /// - Parameters:
    ///   - keyPath: A `@Persisted` property of the element class: `\.age`.
    ///   - ascending: Whether smaller values come first (nil first when ascending).
    /// - Returns: The objects in that order, live.
    public func sorted<V: _Persistable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: propertyName(keyPath), ascending: ascending)
    }

    /// The objects with distinct values of the properties `keyPaths` name, the first of each.
    ///
    /// - Parameter keyPaths: `@Persisted` properties of the element class: `[\.name, \.age]`.
    /// - Returns: The first object of each distinct combination, live.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { propertyName($0) })
    }

    /// The smallest value of the property `keyPath` names, nil if there is none.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the element class: `\.age`.
    /// - Returns: The minimum of the non-nil values, or nil for an empty collection.
    public func min<V: _Persistable>(of keyPath: KeyPath<Element, V>) -> V? {
        min(ofProperty: propertyName(keyPath))
    }

    /// The largest value of the property `keyPath` names, nil if there is none.
    ///
    /// - Parameter keyPath: A `@Persisted` property of the element class: `\.age`.
    /// - Returns: The maximum of the non-nil values, or nil for an empty collection.
    public func max<V: _Persistable>(of keyPath: KeyPath<Element, V>) -> V? {
        max(ofProperty: propertyName(keyPath))
    }

    /// The total of the property `keyPath` names (a number), zero for an empty collection.
    ///
    /// - Parameter keyPath: A numeric `@Persisted` property of the element class: `\.age`.
    /// - Returns: The sum of the non-nil values.
    public func sum<V: _Persistable>(of keyPath: KeyPath<Element, V>) -> V {
        sum(ofProperty: propertyName(keyPath))
    }

    /// The mean of the property `keyPath` names (a number), nil for an empty collection.
    ///
    /// - Parameter keyPath: A numeric `@Persisted` property of the element class: `\.age`.
    /// - Returns: The average of the non-nil values.
    public func average<V: _Persistable>(of keyPath: KeyPath<Element, V>) -> V? {
        average(ofProperty: propertyName(keyPath))
    }

    /// The name of the property `keyPath` reads, learnt from the collection's realm.
    private func propertyName(_ keyPath: PartialKeyPath<Element>) -> String {
        guard let realm else {
            stop("\(keyPath) names a property through a realm; this collection is unmanaged, so use the property's name (sorted(byKeyPath:), min(ofProperty:)...) or add its objects to a realm")
        }
        return realm.propertyName(of: keyPath, in: Element.self)
    }
}

extension List {
    /// The position of the first element equal to `value`, nil if the list does not hold it.
    ///
    /// - Parameter value: A value of the list's element type.
    /// - Returns: The index of the first equal element.
    public func index(of value: Element) -> Int? where Element: Equatable {
        firstIndex(of: value)
    }
}
