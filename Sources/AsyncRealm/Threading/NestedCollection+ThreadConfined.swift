// A list or dictionary held in an `AnyRealmValue` is frozen, thawed and passed on as the path
// to it from its object: another realm finds the object, and walks the path in its own version
// of the value.

extension NestedCollectionLocation {
    /// The collection, independent of the realm that reads it.
    var confinedDescription: _ConfinedDescription {
        let (location, place): (ManagedListLocation, Step?) = switch root {
        case .property(let owner, let column): (ManagedListLocation(owner: owner, column: column), nil)
        case .element(let location, let position): (location, .index(position))
        case .entry(let location, let key): (location, .key(key))
        }
        return _ConfinedDescription(kind: .nested(
            ownerClass: location.owner.info.schema.className, owner: location.owner.key, column: location.column, place: place, path: path))
    }

    /// Where the collection `description` describes is in `realm`; nil if its object is gone
    /// or its path leads to no dictionary (or, if not `dictionary`, no list) there.
    static func resolve(_ description: _ConfinedDescription, in realm: Realm, dictionary: Bool) -> NestedCollectionLocation? {
        guard case .nested(let ownerClass, let owner, let column, let place, let path) = description.kind,
              let location = ManagedListLocation.resolve(ownerClass: ownerClass, owner: owner, column: column, in: realm) else { return nil }
        let root: Root = switch place {
        case nil: .property(owner: location.owner, column: column)
        case .index(let position)?: .element(location, position: position)
        case .key(let key)?: .entry(location, key: key)
        }
        let nested = NestedCollectionLocation(root: root, path: path)
        return nested.holdsCollection(dictionary: dictionary) ? nested : nil
    }
}
