/// The objects of type `Element` that link to an object through the property `originProperty`
/// (a link or a list). Computed from the links, never stored; empty for unmanaged objects.
///
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
public struct LinkingObjects<Element: Object>: RandomAccessCollection {
    let elements: [Element]
    /// The property of `Element` that links here, as `@Persisted(originProperty:)` named it.
    let originProperty: String
    /// The realm they were read from; nil for the linking objects of an unmanaged object.
    public let realm: Realm?
    /// The object they link to, and through which property; nil when unmanaged.
    let source: LinkingSource?

    init(elements: [Element], originProperty: String, realm: Realm? = nil, source: LinkingSource? = nil) {
        self.elements = elements
        self.originProperty = originProperty
        self.realm = realm
        self.source = source
    }

    /// Live results of the objects linking to the source object: read again from the backlink
    /// index whenever the realm changes (what change streams and thread-safe references use).
    var liveResults: Results<Element> {
        guard let realm, let source else {
            stop("only the linking objects of a managed object can be observed or passed on; add the object to a realm first")
        }
        return Results(realm: realm, info: realm.classInfoOrStop(for: Element.self), base: .linking(source))
    }

    @usableFromInline
    init(originProperty: String) {
        self.init(elements: [], originProperty: originProperty)
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
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
