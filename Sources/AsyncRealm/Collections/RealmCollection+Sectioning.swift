/// RealmSwift's `sectioned(by:)`: a collection's objects, sorted, grouped into sections.
extension RealmCollection {
    /// The objects sorted by the property `keyPath` reads and grouped into sections of equal
    /// `keyPath` values.
    ///
    /// `keyPath` may be a computed property that reads one `@Persisted` property, such as a
    /// name's first letter: the objects are sorted by that property, and each section holds
    /// the objects whose computed value is its key.
    ///
    /// - Parameters:
    ///   - keyPath: The section key of each object: `\.firstLetter`, `\.category`.
    ///   - ascending: Whether smaller values of the property come first.
    /// - Returns: Live sections.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        guard let realm else {
            stop("only the objects of a realm can be sectioned; add them to a realm first")
        }
        let name = realm.propertyName(of: keyPath, in: Element.self)
        return sectioned(by: { $0[keyPath: keyPath] }, sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// The objects sorted by `sortDescriptors` and grouped into sections of equal `keyPath`
    /// values.
    ///
    /// - Parameters:
    ///   - keyPath: The section key of each object.
    ///   - sortDescriptors: The order of the objects; sort by the key's property first for
    ///     sections in the key's order.
    /// - Returns: Live sections.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        sectioned(by: { $0[keyPath: keyPath] }, sortDescriptors: sortDescriptors)
    }

    /// The objects sorted by `sortDescriptors` and grouped into sections of equal keys, the key
    /// of each object being what `block` returns for it.
    ///
    /// - Parameters:
    ///   - block: The section key of an object; called for every object each time the
    ///     sections are worked out again (after a write).
    ///   - sortDescriptors: The order of the objects.
    /// - Returns: Live sections.
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), grouping: SectionGrouping(keyOf: block))
    }
}
