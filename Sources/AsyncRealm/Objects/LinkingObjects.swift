/// The objects of type `Element` that link to an object through the property `originProperty`
/// (a link or a list). Computed from the links, never stored; empty for unmanaged objects.
///
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///
/// As in RealmSwift they are live, like `Results`: an object that starts linking here appears,
/// and one deleted or unlinked disappears, as soon as the realm reads the version that did it.
public struct LinkingObjects<Element: Object>: RandomAccessCollection {
    /// The property of `Element` that links here, as `@Persisted(originProperty:)` named it.
    let originProperty: String
    /// The object they link to, and through which property; nil when unmanaged.
    let source: LinkingSource?
    /// The objects, read again from the backlink index whenever the realm changes; nil for the
    /// linking objects of an unmanaged object.
    private let results: Results<Element>?

    @usableFromInline
    init(originProperty: String) {
        self.originProperty = originProperty
        source = nil
        results = nil
    }

    /// The live linking objects of `source`'s object, read by `realm`.
    init(realm: Realm, source: LinkingSource) {
        originProperty = source.property.linkOriginPropertyName ?? ""
        self.source = source
        results = Results(realm: realm, info: realm.classInfoOrStop(for: Element.self), base: .linking(source))
    }

    /// The realm they are read from; nil for the linking objects of an unmanaged object.
    public var realm: Realm? { results?.realm }

    /// Whether they can no longer be read: their realm was invalidated since they were read.
    public var isInvalidated: Bool { results?.isInvalidated ?? false }

    /// The linking objects as live results (what queries, change streams and thread-safe
    /// references use).
    var liveResults: Results<Element> {
        guard let results else {
            stop("only the linking objects of a managed object can be queried, observed or passed on; add the object to a realm first")
        }
        return results
    }

    /// Always zero.
    public var startIndex: Int { 0 }
    /// The number of objects linking here now.
    public var endIndex: Int { results?.count ?? 0 }

    /// Iterates the linking objects there were when iteration began, as `Results` do: deleting
    /// or unlinking them inside the loop skips none.
    ///
    /// - Returns: An iterator starting at the first object.
    public func makeIterator() -> AnyIterator<Element> {
        guard let results else { return AnyIterator { nil } }
        var iterator = results.makeIterator()
        return AnyIterator { iterator.next() }
    }

    /// The linking object at `position`, in the order of the backlink index.
    ///
    /// - Parameter position: A position below `endIndex`.
    public subscript(position: Int) -> Element {
        guard let results else { stop("index \(position) is out of bounds: the linking objects of an unmanaged object are empty") }
        return results[position]
    }
}

extension LinkingObjects: _Persistable {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.linkingObjects, objectType: Element.self) }
    public static func _persistedDefault() -> LinkingObjects { LinkingObjects(originProperty: "") }

    /// Linking objects are computed, never stored; `Realm` builds them (see `Realm.linkingObjects`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> LinkingObjects {
        stop("LinkingObjects are not stored")
    }

    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.null) }
}

/// The object some linking objects link to, and the `LinkingObjects` property they were read
/// through.
struct LinkingSource: Sendable {
    let target: UInt64
    let targetClass: String
    let property: Property
}

/// Reads the origin property of a `LinkingObjects` whose element type is not known statically.
protocol LinkingObjectsDescribing {
    var originProperty: String { get }
}

extension LinkingObjects: LinkingObjectsDescribing {}
