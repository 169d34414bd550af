// Lists, sets and maps compare as RealmSwift's (whose collections are `NSObject`s comparing
// with `isEqual:`): two unmanaged ones by what they hold, two managed ones when they are the
// same stored collection, and a managed one never equals an unmanaged one.

/// What makes a managed collection the one it is: its realm handle, its object, and where in
/// the object it is stored.
struct StoredCollectionIdentity: Hashable {
    let realm: ObjectIdentifier
    let className: String
    let key: UInt64
    let column: Int
    /// For a list or dictionary in a mixed value: the element or key of the list or map
    /// property holding the value (if it is not the property itself), then the path.
    let place: [NestedCollectionLocation.Step]
}

extension _CollectionBase {
    /// The stored collection this one is; nil if it is unmanaged.
    var storedIdentity: StoredCollectionIdentity? {
        if let location {
            return StoredCollectionIdentity(owner: location.owner, column: location.column, place: [])
        }
        guard let nested else { return nil }
        switch nested.root {
        case .property(let owner, let column):
            return StoredCollectionIdentity(owner: owner, column: column, place: nested.path)
        case .element(let location, let position):
            return StoredCollectionIdentity(owner: location.owner, column: location.column, place: [.index(position)] + nested.path)
        case .entry(let location, let key):
            return StoredCollectionIdentity(owner: location.owner, column: location.column, place: [.key(key)] + nested.path)
        }
    }

    /// Whether two collections, one of them at least managed, are the same stored collection;
    /// nil when both are unmanaged (then what they hold decides).
    func isSameStoredCollection(as other: _CollectionBase) -> Bool? {
        switch (storedIdentity, other.storedIdentity) {
        case (nil, nil): nil
        case (let mine?, let theirs?): mine == theirs
        default: false
        }
    }

    /// Hashes the stored collection, or for an unmanaged one its count, which equal
    /// collections share.
    func hashIdentity(count: Int, into hasher: inout Hasher) {
        if let identity = storedIdentity { hasher.combine(identity) } else { hasher.combine(count) }
    }
}

extension StoredCollectionIdentity {
    init(owner: ManagedObjectState, column: Int, place: [NestedCollectionLocation.Step]) {
        self.init(realm: ObjectIdentifier(owner.realm), className: owner.info.schema.className, key: owner.key, column: column, place: place)
    }
}

extension List: Equatable, Hashable {
    /// Whether two lists are equal: unmanaged ones when they hold equal elements in the same
    /// order, managed ones when they are the same stored list.
    public static func == (lhs: List, rhs: List) -> Bool {
        lhs === rhs || (lhs.isSameStoredCollection(as: rhs) ?? lhs.elementsEqual(rhs))
    }

    /// Hashes the stored collection, or an unmanaged one's count, which equal ones share.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hashIdentity(count: count, into: &hasher)
    }
}

extension MutableSet: Equatable, Hashable {
    /// Whether two sets are equal: unmanaged ones when they hold the same elements, managed
    /// ones when they are the same stored set.
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool {
        lhs === rhs || (lhs.isSameStoredCollection(as: rhs) ?? (lhs.count == rhs.count && lhs.allSatisfy(rhs.contains)))
    }

    /// Hashes the stored collection, or an unmanaged one's count, which equal ones share.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hashIdentity(count: count, into: &hasher)
    }
}

extension Map: Equatable, Hashable {
    /// Whether two maps are equal: unmanaged ones when they hold the same keys with equal
    /// values, managed ones when they are the same stored map.
    public static func == (lhs: Map, rhs: Map) -> Bool {
        lhs === rhs || (lhs.isSameStoredCollection(as: rhs) ?? lhs.elementsEqual(rhs) { $0.key == $1.key && $0.value == $1.value })
    }

    /// Hashes the stored collection, or an unmanaged one's count, which equal ones share.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hashIdentity(count: count, into: &hasher)
    }
}
