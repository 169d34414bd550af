import StorageEngine

/// What `List`, `MutableSet` and `Map` share: where a managed one is stored, and what that
/// says of its realm and its validity. Public only because they are its subclasses.
public class _CollectionBase {
    /// Where a managed collection lives: its owner's row and column; nil if unmanaged.
    let location: ManagedListLocation?
    /// Where a list or dictionary held in a managed object's `AnyRealmValue` lives; nil for
    /// every other collection. Such a collection has no `location` and keeps no elements of
    /// its own: it reads and writes the mixed value holding it.
    let nested: NestedCollectionLocation?

    init(location: ManagedListLocation?) {
        self.location = location
        nested = nil
    }

    init(nested: NestedCollectionLocation) {
        location = nil
        self.nested = nested
    }

    /// Where the collection is stored, if it is managed (for queries on it).
    var managedLocation: ManagedListLocation? { location }

    /// The realm managing this collection, or nil if it is unmanaged.
    public var realm: Realm? { location?.owner.realm ?? nested?.realm }

    /// Whether the collection can no longer be used: its object was deleted, or its realm was
    /// invalidated since it was read (or, for a list or dictionary in an `AnyRealmValue`, the
    /// value no longer holds it). An unmanaged collection is never invalidated.
    public var isInvalidated: Bool {
        if let nested { return !nested.holdsCollection(dictionary: self is Map<String, AnyRealmValue>) }
        guard let location else { return false }
        return location.realm.isInvalidated(location.owner)
    }
}
