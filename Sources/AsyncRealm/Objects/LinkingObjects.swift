/// The objects of type `Element` that link to an object through the property `originProperty`
/// (a link or a list). Computed from the links, never stored; empty for unmanaged objects.
///
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
public struct LinkingObjects<Element: Object>: RandomAccessCollection {
    let elements: [Element]

    init(elements: [Element] = []) {
        self.elements = elements
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
}

extension LinkingObjects: _Persistable {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.linkingObjects, objectType: Element.self) }
    public static func _persistedDefault() -> LinkingObjects { LinkingObjects() }

    /// Linking objects are computed, never stored; `Realm` builds them (see `Realm.linkingObjects`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> LinkingObjects {
        preconditionFailure("LinkingObjects are not stored")
    }

    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.null) }
}
