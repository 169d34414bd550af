import StorageEngine

/// An ordered to-many property: a list of objects or of primitive values, duplicates allowed.
///
/// An unmanaged list holds its elements in memory like an array. The list of a managed object
/// reads and writes its realm: every accessor sees a change at once, and changing it needs a
/// write transaction.
public final class List<Element: RealmCollectionValue>: _CollectionBase, RandomAccessCollection, MutableCollection {
    /// An unmanaged list's elements.
    private var storedElements: [Element] = []

    /// The elements an unmanaged list holds, or a list held in a managed `AnyRealmValue`
    /// (`nested`) holds now: such a list is read whole and stored whole again after a change.
    private var unmanaged: [Element] {
        get {
            guard let nested else { return storedElements }
            return nestedElements(nested)
        }
        _modify {
            guard let nested else {
                yield &storedElements
                return
            }
            var elements = nestedElements(nested)
            yield &elements
            nested.store(list: elements as! [AnyRealmValue])
        }
    }

    public init() {
        super.init(location: nil)
    }

    override init(location: ManagedListLocation?) {
        super.init(location: location)
    }

    /// The list held in the mixed value at `nested`.
    override init(nested: NestedCollectionLocation) {
        super.init(nested: nested)
    }

    private func nestedElements(_ nested: NestedCollectionLocation) -> [Element] {
        let stored = nested.existingListElements()
        return stored.indices.map { position in
            AnyRealmValue(mixed: MixedValue(stored: stored[position]), realm: nested.realm, at: nested.appending(.index(position))) as! Element
        }
    }

    /// An iterator over the elements: a loop goes through the elements the
    /// list held when it began (see `CollectionSnapshotIterator`).
    ///
    /// - Returns: An iterator starting at the first element.
    public func makeIterator() -> CollectionSnapshotIterator<Element> {
        guard let location else { return CollectionSnapshotIterator(unmanaged: unmanaged) }
        return CollectionSnapshotIterator(location: location, placesElements: true)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        guard let location else { return unmanaged.count }
        return location.count
    }

    public subscript(position: Int) -> Element {
        get {
            guard let location else { return unmanaged[position] }
            return location.element(location.element(at: position), as: Element.self, at: .element(location, position: position))
        }
        set { replace(index: position, object: newValue) }
    }

    /// Appends `element`: one row written, however long the list.
    ///
    /// - Parameter element: A value, or an object (added to the realm if it is unmanaged).
    public func append(_ element: Element) {
        guard let location else { return unmanaged.append(element) }
        let stored = location.stored(element)
        location.change { table, count in
            try ListStore.append([stored], to: table, owner: location.owner.key, count: count)
            return count + 1
        }
    }

    /// Appends the elements of a sequence, in order; call inside a write transaction for a
    /// managed list.
    ///
    /// - Parameter elements: Values, or objects (unmanaged ones are added to the realm).
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        guard let location else { return unmanaged.append(contentsOf: elements) }
        let stored = elements.map { location.stored($0) }
        location.change { table, count in
            try ListStore.append(stored, to: table, owner: location.owner.key, count: count)
            return count + stored.count
        }
    }

    public func insert(_ element: Element, at index: Int) {
        guard let location else { return unmanaged.insert(element, at: index) }
        let stored = location.stored(element)
        location.change { table, count in
            location.checkIndex(index, within: count + 1)
            try ListStore.insert(stored, at: index, in: table, owner: location.owner.key, count: count)
            return count + 1
        }
    }

    /// Removes the element at a position, shifting the ones after it.
    ///
    /// - Parameter index: A position below `count`.
    public func remove(at index: Int) {
        guard let location else {
            unmanaged.remove(at: index)
            return
        }
        location.checkWritable()
        location.change { table, count in
            location.checkIndex(index, within: count)
            try ListStore.remove(at: index, in: table, owner: location.owner.key, count: count)
            return count - 1
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

    /// Moves the element at `from` to `to`, shifting the ones between.
    ///
    /// - Parameters:
    ///   - from: The position of the element to move.
    ///   - to: Its position afterwards.
    public func move(from: Int, to: Int) {
        guard let location else {
            unmanaged.insert(unmanaged.remove(at: from), at: to)
            return
        }
        location.checkWritable()
        location.change { table, count in
            location.checkIndex(from, within: count)
            location.checkIndex(to, within: count)
            let element = try ListStore.element(in: table, owner: location.owner.key, position: from)
            try ListStore.remove(at: from, in: table, owner: location.owner.key, count: count)
            try ListStore.insert(element, at: to, in: table, owner: location.owner.key, count: count - 1)
            return count
        }
    }

    public func swapAt(_ index1: Int, _ index2: Int) {
        guard let location else { return unmanaged.swapAt(index1, index2) }
        location.checkWritable()
        location.change { table, count in
            location.checkIndex(index1, within: count)
            location.checkIndex(index2, within: count)
            let first = try ListStore.element(in: table, owner: location.owner.key, position: index1)
            let second = try ListStore.element(in: table, owner: location.owner.key, position: index2)
            try ListStore.set(second, at: index1, in: table, owner: location.owner.key)
            try ListStore.set(first, at: index2, in: table, owner: location.owner.key)
            return count
        }
    }

    /// Replaces the element at `index`.
    ///
    /// - Parameters:
    ///   - index: A position below `count`.
    ///   - object: The new element.
    public func replace(index: Int, object: Element) {
        guard let location else {
            unmanaged[index] = object
            return
        }
        let stored = location.stored(object)
        location.change { table, count in
            location.checkIndex(index, within: count)
            try ListStore.set(stored, at: index, in: table, owner: location.owner.key)
            return count
        }
    }
}

/// `replaceSubrange` gives a list every `RangeReplaceableCollection` operation, as in
/// RealmSwift: `list.replaceSubrange(0..<2, with: [x])`, `list.insert(contentsOf:at:)`,
/// `list.removeSubrange(_:)`, `list.removeFirst(_:)`...
extension List: RangeReplaceableCollection {
    /// Replaces the elements in `subrange` with `newElements`, of any length.
    ///
    /// - Parameters:
    ///   - subrange: Positions of the list, `0...count`.
    ///   - newElements: The elements to put there; unmanaged objects are added to the realm.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        guard let location else { return unmanaged.replaceSubrange(subrange, with: newElements) }
        let stored = newElements.map { location.stored($0) }
        var values = location.values()
        require(subrange.lowerBound >= 0 && subrange.upperBound <= values.count,
                "range \(subrange) is out of bounds for a list of \(values.count) elements")
        values.replaceSubrange(subrange, with: stored)
        location.change { table, count in
            try ListStore.replace(with: values, in: table, owner: location.owner.key, count: count)
            return values.count
        }
    }

    // The collection's mutating members, declared on the class so that a list held in a `let`
    // (every `@Persisted` list read) can use them.

    /// Inserts `newElements` at `index`.
    ///
    /// - Parameters:
    ///   - newElements: The elements to insert, in order.
    ///   - index: The position of the first of them; at most `count`.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        replaceSubrange(index..<index, with: newElements)
    }

    /// Appends `newElements`.
    ///
    /// - Parameter newElements: The elements to append, in order.
    public func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
        append(objectsIn: newElements)
    }

    /// Removes the elements in `bounds`.
    ///
    /// - Parameter bounds: Positions within the list.
    public func removeSubrange(_ bounds: Range<Int>) {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes and returns the first element; the list must not be empty.
    ///
    /// - Returns: The element that was first.
    @discardableResult
    public func removeFirst() -> Element {
        let first = self[0]
        remove(at: 0)
        return first
    }

    /// Removes the first `count` elements.
    ///
    /// - Parameter count: How many elements to remove; at most `count`.
    public func removeFirst(_ count: Int) {
        removeSubrange(0..<count)
    }

    /// Removes and returns the last element; the list must not be empty.
    ///
    /// - Returns: The element that was last.
    @discardableResult
    public func removeLast() -> Element {
        let last = self[count - 1]
        remove(at: count - 1)
        return last
    }

    /// Removes the last `count` elements.
    ///
    /// - Parameter count: How many elements to remove; at most `count`.
    public func removeLast(_ count: Int) {
        removeSubrange((self.count - count)..<self.count)
    }
}

/// Builds the `List` of a managed object for an element type known only at run time.
protocol ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> Self
}

extension List: ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> List { List(location: location) }
}

extension List: _Persistable {
    public static var _persistedKind: _PersistedKind {
        var kind = Element._persistedKind
        kind.isArray = true
        return kind
    }

    public static func _persistedDefault() -> List { List() }

    /// A new unmanaged list from an array (or any sequence) of values its elements accept; an
    /// empty one from nil or `NSNull()`, as in RealmSwift.
    public static func _fromAny(_ value: Any?) -> List? {
        if isNull(value) { return List() }
        if let list = value as? List { return list }
        guard let sequence = value as? any Sequence else { return nil }
        var elements: [Element] = []
        for item in sequence {
            guard let element = Element._fromAny(item) else { return nil }
            elements.append(element)
        }
        let list = List()
        list.unmanaged = elements
        return list
    }

    /// An unmanaged copy of a stored list (managed lists are built by `Realm.read`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> List {
        guard case .list(let values) = stored.value else { storageMismatch(stored, Self.self) }
        let list = List()
        list.unmanaged = values.map { Element._fromStorage(_StorageValue($0), realm: realm) }
        return list
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        if let location, location.owner.realm === realm { return _StorageValue(.list(location.values())) }
        return _StorageValue(.list(map { storedLink($0, realm: realm).value }))
    }
}
