import StorageEngine

/// An unordered to-many property holding each value or object at most once, as RealmSwift's
/// `MutableSet`.
///
///     class Post: Object {
///         @Persisted var tags: MutableSet<String>
///     }
///     post.tags.insert("swift")
///     post.tags.insert("swift")          // already there: still one element
///
/// An unmanaged set holds its elements in memory. The set of a managed object reads and writes
/// its realm: every accessor sees a change at once, and changing it needs a write transaction.
/// Elements have positions (`set[0]`), as in RealmSwift, but their order means nothing and
/// changes when an element is removed.
///
/// Strings are the same element when their UTF-8 bytes are (as queries compare them), every NaN
/// is one element, and `0.0` is the same element as `-0.0`.
public final class MutableSet<Element: RealmCollectionValue>: _CollectionBase, RandomAccessCollection {
    private var unmanaged: [Element] = []

    /// An empty unmanaged set.
    public init() {
        super.init(location: nil)
    }

    override init(location: ManagedListLocation?) {
        super.init(location: location)
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The position after the last element: the number of elements the set holds now.
    public var endIndex: Int { location?.count ?? unmanaged.count }

    /// The element at a position; positions follow no order.
    ///
    /// - Parameter position: A position below `count`.
    public subscript(position: Int) -> Element {
        guard let location else { return unmanaged[position] }
        return location.element(location.element(at: position), as: Element.self)
    }

    /// An iterator over the elements: a loop goes through the elements the
    /// set held when it began (see `CollectionSnapshotIterator`).
    ///
    /// - Returns: An iterator starting at the first element.
    public func makeIterator() -> CollectionSnapshotIterator<Element> {
        guard let location else { return CollectionSnapshotIterator(unmanaged: unmanaged) }
        return CollectionSnapshotIterator(location: location, placesElements: false)
    }

    // MARK: Membership

    /// Whether the set holds `element`.
    ///
    /// - Parameter element: A value, or an object (an object of another realm, or unmanaged, is
    ///   never in a managed set).
    /// - Returns: True if an equal element is in the set.
    public func contains(_ element: Element) -> Bool {
        guard let location else { return unmanaged.contains(element) }
        guard let stored = location.lookupValue(element) else { return false }
        return location.read { table, count in
            try SetStore.position(of: stored, in: table, owner: location.owner.key, count: count) != nil
        }
    }

    /// Whether every element of this set is in `possibleSuperset`.
    ///
    /// - Parameter possibleSuperset: Another set of the same element type.
    /// - Returns: True if this set holds nothing `possibleSuperset` does not.
    public func isSubset(of possibleSuperset: MutableSet<Element>) -> Bool {
        let (mine, theirs) = comparableElements(with: possibleSuperset)
        return mine.isSubset(of: theirs)
    }

    /// Whether this set and `otherSet` have an element in common.
    ///
    /// - Parameter otherSet: Another set of the same element type.
    /// - Returns: True if some element is in both.
    public func intersects(_ otherSet: MutableSet<Element>) -> Bool {
        let (mine, theirs) = comparableElements(with: otherSet)
        return !mine.isDisjoint(with: theirs)
    }

    // MARK: Changing

    /// Adds `element` unless the set holds it already.
    ///
    /// - Parameter element: A value, or an object (added to the realm if it is unmanaged).
    public func insert(_ element: Element) {
        insert(objectsIn: CollectionOfOne(element))
    }

    /// Adds each element of a sequence the set does not hold yet.
    ///
    /// - Parameter elements: Values, or objects (unmanaged ones are added to the realm).
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        let elements = Array(elements)
        if Element.self == AnyRealmValue.self {
            for case let element as AnyRealmValue in elements where element.listValue != nil || element.dictionaryValue != nil {
                stop("a MutableSet cannot hold a list or a dictionary (AnyRealmValue.list or .dictionary), as in Realm; keep them in a List or a Map")
            }
        }
        guard let location else {
            for element in elements where !unmanaged.contains(element) { unmanaged.append(element) }
            return
        }
        let stored = elements.map { location.stored($0) }
        location.change { table, count in
            try SetStore.insert(stored, into: table, owner: location.owner.key, count: count)
        }
    }

    /// Removes `element` if the set holds it (the object itself stays in the realm).
    ///
    /// - Parameter element: The value or object to remove.
    public func remove(_ element: Element) {
        guard let location else {
            unmanaged.removeAll { $0 == element }
            return
        }
        location.checkWritable()
        guard let stored = location.lookupValue(element) else { return }
        location.change { table, count in
            try SetStore.remove([stored], from: table, owner: location.owner.key, count: count)
        }
    }

    /// Removes every element (the objects themselves stay in the realm).
    public func removeAll() {
        guard let location else { return unmanaged.removeAll() }
        location.checkWritable()
        location.change { table, count in
            try ListStore.removeAll(in: table, owner: location.owner.key, count: count)
            return 0
        }
    }

    /// Adds every element of `otherSet` this set does not hold.
    ///
    /// - Parameter otherSet: Another set of the same element type.
    public func formUnion(_ otherSet: MutableSet<Element>) {
        insert(objectsIn: Array(otherSet))
    }

    /// Removes every element `otherSet` holds.
    ///
    /// - Parameter otherSet: Another set of the same element type.
    public func subtract(_ otherSet: MutableSet<Element>) {
        let removed = Array(otherSet)
        guard let location else {
            for element in removed { remove(element) }
            return
        }
        location.checkWritable()
        let stored = removed.compactMap { location.lookupValue($0) }
        location.change { table, count in
            try SetStore.remove(stored, from: table, owner: location.owner.key, count: count)
        }
    }

    /// Keeps only the elements `otherSet` holds too.
    ///
    /// - Parameter otherSet: Another set of the same element type.
    public func formIntersection(_ otherSet: MutableSet<Element>) {
        guard let location else {
            let (_, theirs) = comparableElements(with: otherSet)
            unmanaged.removeAll { !theirs.contains(comparable($0, in: otherSet.location)) }
            return
        }
        location.checkWritable()
        let kept = Set(otherSet.compactMap { location.lookupValue($0).map(SetStore.Member.init) })
        location.change { table, count in
            try SetStore.keep(only: kept, in: table, owner: location.owner.key, count: count)
        }
    }

    // MARK: Comparing elements

    /// The elements of this set and of `other` as sets compare them: as stored values in the
    /// realm of whichever is managed (an object that realm does not manage is equal only to
    /// itself), or by the elements' own equality when neither is.
    private func comparableElements(with other: MutableSet<Element>) -> (Set<AnyHashable>, Set<AnyHashable>) {
        let location = self.location ?? other.location
        return (Set(map { comparable($0, in: location) }), Set(other.map { comparable($0, in: location) }))
    }

    private func comparable(_ element: Element, in location: ManagedListLocation?) -> AnyHashable {
        if let location, let stored = location.lookupValue(element) { return SetStore.Member(stored) }
        return element
    }
}

/// Builds the `MutableSet` of a managed object for an element type known only at run time.
extension MutableSet: ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> MutableSet { MutableSet(location: location) }
}

extension MutableSet: _Persistable {
    public static var _persistedKind: _PersistedKind {
        var kind = Element._persistedKind
        kind.isSet = true
        return kind
    }

    public static func _persistedDefault() -> MutableSet { MutableSet() }

    /// A new unmanaged set from an array (or any sequence) of values its elements accept, each
    /// kept once; an empty one from nil or `NSNull()`, as in RealmSwift.
    public static func _fromAny(_ value: Any?) -> MutableSet? {
        if isNull(value) { return MutableSet() }
        if let set = value as? MutableSet { return set }
        guard let sequence = value as? any Sequence else { return nil }
        let set = MutableSet()
        for item in anyElements(of: sequence) {
            guard let element = Element._fromAny(item) else { return nil }
            set.insert(element)
        }
        return set
    }

    /// An unmanaged copy of a stored set (managed sets are built by `Realm.read`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> MutableSet {
        guard case .list(let values) = stored.value else { storageMismatch(stored, Self.self) }
        let set = MutableSet()
        set.unmanaged = SetStore.distinct(values).map { Element._fromStorage(_StorageValue($0), realm: realm) }
        return set
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        if let location, location.owner.realm === realm { return _StorageValue(.list(location.values())) }
        return _StorageValue(.list(SetStore.distinct(map { storedLink($0, realm: realm).value })))
    }
}
