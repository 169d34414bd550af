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

    init(elements: [Element], originProperty: String, realm: Realm? = nil) {
        self.elements = elements
        self.originProperty = originProperty
        self.realm = realm
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
        preconditionFailure("LinkingObjects are not stored")
    }

    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.null) }
}

/// Reads the origin property of a `LinkingObjects` whose element type is not known statically.
protocol LinkingObjectsDescribing {
    var originProperty: String { get }
}

extension LinkingObjects: LinkingObjectsDescribing {}
