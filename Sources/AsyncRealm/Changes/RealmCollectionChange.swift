/// An element of a collection's change stream.
///
/// `.initial` comes first, with the collection as it is when the consumer first asks; each
/// `.update` then describes everything that changed since the previous element, however many
/// commits that was (coalesced). `deletions` and `modifications` are indices in the collection
/// as the previous element showed it, `insertions` indices in the collection now; each sorted
/// ascending. An object that moved is a deletion at its old index and an insertion at its new one.
public enum RealmCollectionChange<Collection> {
    /// The collection as it is when the consumer first asks: the first element.
    case initial(Collection)
    /// The collection now, with what changed since the previous element: indices of deletions
    /// and modifications in the previous collection, of insertions in this one.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
}

/// An element of a map's change stream: like `RealmCollectionChange`, with keys for indices.
///
/// `.initial` comes first, with the map as it is when the consumer first asks; each `.update`
/// then gives the keys removed, added, and whose value changed (or whose object was modified)
/// since the previous element, each sorted as the map sorts its keys.
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The map as it is when the consumer first asks: the first element.
    case initial(Collection)
    /// The map now, with the keys removed, added, and whose values changed since the previous
    /// element.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
}

/// A collection of values under keys: `Map`, for `RealmMapChange`.
public protocol RealmKeyedCollection: Sequence {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: RealmCollectionValue
}

extension Map: RealmKeyedCollection {}

/// An element of an object's change stream: the properties that changed since the previous
/// element (with their values then and now), or `.deleted`, after which the stream ends.
public enum ObjectChange<T> {
    /// The object, and the properties that changed.
    case change(T, [PropertyChange])
    /// The object was deleted; the stream ends.
    case deleted
}

/// One property of an object that changed. For a link or list whose objects changed, rather
/// than the link itself, `oldValue` is nil and `newValue` the current value.
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value before the change (links and lists read as they are now), nil if unknown.
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?
}

extension Realm {
    /// An element of `realm.changes`.
    public enum Notification: Sendable, Equatable {
        /// The realm advanced to a version with changes (made through this handle or another).
        case didChange
    }
}
