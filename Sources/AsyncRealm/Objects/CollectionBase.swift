import StorageEngine

/// What `List`, `MutableSet` and `Map` share: where a managed one is stored, and what that
/// says of its realm and its validity. Public only because they are its subclasses.
public class _CollectionBase {
    /// Where a managed collection lives: its owner's row and column; nil if unmanaged.
    let location: ManagedListLocation?

    init(location: ManagedListLocation?) {
        self.location = location
    }

    /// Where the collection is stored, if it is managed (for queries on it).
    var managedLocation: ManagedListLocation? { location }

    /// The realm managing this collection, or nil if it is unmanaged.
    public var realm: Realm? { location?.owner.realm }

    /// Whether the collection can no longer be used: its object was deleted, or its realm was
    /// invalidated since it was read. An unmanaged collection is never invalidated.
    public var isInvalidated: Bool {
        guard let location else { return false }
        return location.realm.isInvalidated(location.owner)
    }
}
