/// What is confined to its realm's actor or thread and can be frozen, thawed and passed on by
/// `ThreadSafeReference` or `Frozen`: objects, `Results`, `List`, `MutableSet`, `Map` and
/// `LinkingObjects`.
public protocol ThreadConfined {
    /// The realm, or nil if unmanaged.
    var realm: Realm? { get }
    /// Whether the value reads a frozen realm.
    var isFrozen: Bool { get }
    /// What the value is, independent of the realm that reads it.
    var _confinedDescription: _ConfinedDescription { get }
    /// The value `description` describes, read by `realm`; nil if it no longer exists.
    static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> Self?
}

/// What a confined value is, independent of the realm that reads it: a `Sendable` description
/// that another realm resolves to the same object or collection.
public struct _ConfinedDescription: Sendable {
    enum Kind: Sendable {
        case object(className: String, key: UInt64)
        case results(className: String, query: BoundPredicate?, steps: [BoundStep], base: ResultsBase?)
        /// A list, a set or a map.
        case list(ownerClass: String, owner: UInt64, column: Int)
        /// A list or dictionary held in an `AnyRealmValue` (see `NestedCollectionLocation`):
        /// the property holding the value, the element or key of it for a list or map
        /// property, and the path down to the collection.
        case nested(ownerClass: String, owner: UInt64, column: Int, place: NestedCollectionLocation.Step?, path: [NestedCollectionLocation.Step])
        case linking(LinkingSource)
        /// Sectioned results: their sorted results, and the key block that groups them.
        indirect case sectioned(results: _ConfinedDescription, keyOf: UncheckedSendable<Any>)
        /// One section of sectioned results, by its key.
        indirect case section(sections: _ConfinedDescription, key: UncheckedSendable<Any>)
    }

    let kind: Kind
}

/// A value carried across isolation inside a `_ConfinedDescription` although its type is not
/// `Sendable`: a section's key (a value: a `String`, an `Int`, a `Date`), or the key block of
/// sectioned results, which RealmSwift calls wherever the sections are read.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

extension ThreadConfined {
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The same value in a frozen realm at the current version: it never changes, and can be
    /// read from any task through `Frozen`.
    ///
    /// - Important: Only managed values can be frozen.
    ///
    /// - Returns: The value, frozen at its realm's current version.
    public func freeze() -> Self {
        guard let realm else { stop("only managed objects and collections can be frozen; add the object to a realm first") }
        if realm.isFrozen { return self }
        guard let frozen = Self._resolve(_confinedDescription, in: realm.freeze()) else {
            stop("a deleted object cannot be frozen; check isInvalidated first")
        }
        return frozen
    }

    /// The live equivalent of a frozen value, in a realm confined to the caller's isolation,
    /// at the newest version; nil if it was deleted since. A live value is returned as it is.
    ///
    /// - Important: An unmanaged value has nothing to thaw: thawing one stops, as in RealmSwift.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: The live value, or nil if the object was deleted.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Self? {
        guard let realm else { stop("an unmanaged \(Self.self) is not frozen and cannot be thawed; thaw only what freeze() or a frozen realm gave") }
        guard realm.isFrozen else { return self }
        return Self._resolve(_confinedDescription, in: Realm.live(configuration: realm.configuration, isolation: isolation))
    }
}

extension Object: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        guard let managed else { stop("an unmanaged object is not confined; pass it as it is, or add it to a realm first") }
        return _ConfinedDescription(kind: .object(className: managed.info.schema.className, key: managed.key))
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> Self? {
        guard case .object(let className, let key) = description.kind else { return nil }
        let info = realm.classInfo(named: className, for: self)
        guard readOrStop({ try realm.readTable(info)?.contains(key) }) == true else { return nil }
        return realm.accessor(of: self, key: key, info: info)
    }
}

extension Results: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        _ConfinedDescription(kind: .results(className: info.schema.className, query: query, steps: steps, base: base))
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> Results? {
        guard case .results(let className, let query, let steps, let base) = description.kind else { return nil }
        return Results(realm: realm, info: realm.classInfo(named: className, for: Element.self), query: query, steps: steps, base: base)
    }
}

extension List: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        if let nested { return nested.confinedDescription }
        guard let location = managedLocation else { stop("an unmanaged list is not confined; pass it as it is, or add its object to a realm first") }
        return location.confinedDescription
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> List? {
        if case .nested = description.kind {
            return NestedCollectionLocation.resolve(description, in: realm, dictionary: false).map { List(nested: $0) }
        }
        return ManagedListLocation.resolve(description, in: realm).map { List(location: $0) }
    }
}

extension MutableSet: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        guard let location = managedLocation else { stop("an unmanaged set is not confined; pass it as it is, or add its object to a realm first") }
        return location.confinedDescription
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> MutableSet? {
        ManagedListLocation.resolve(description, in: realm).map { MutableSet(location: $0) }
    }
}

extension Map: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        if let nested { return nested.confinedDescription }
        guard let location = managedLocation else { stop("an unmanaged map is not confined; pass it as it is, or add its object to a realm first") }
        return location.confinedDescription
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> Map? {
        if case .nested = description.kind {
            return NestedCollectionLocation.resolve(description, in: realm, dictionary: true).map { Map(nested: $0) }
        }
        return ManagedListLocation.resolve(description, in: realm).map { Map(location: $0) }
    }
}

extension Realm {
    /// The class info of the class named `className`, read as `type`: by its name for a
    /// `DynamicObject`, which is no model class.
    func classInfo(named className: String, for type: Object.Type) -> ClassInfo {
        type == DynamicObject.self ? dynamicClassInfo(className) : classInfoOrStop(for: type)
    }
}

extension ManagedListLocation {
    /// The collection, independent of the realm that reads it.
    var confinedDescription: _ConfinedDescription {
        _ConfinedDescription(kind: .list(ownerClass: owner.info.schema.className, owner: owner.key, column: column))
    }

    /// Where the collection `description` describes is in `realm`; nil if its object is gone.
    static func resolve(_ description: _ConfinedDescription, in realm: Realm) -> ManagedListLocation? {
        guard case .list(let ownerClass, let owner, let column) = description.kind else { return nil }
        return resolve(ownerClass: ownerClass, owner: owner, column: column, in: realm)
    }

    /// Column `column` of object `owner` of class `ownerClass` in `realm`; nil if the object is
    /// gone.
    static func resolve(ownerClass: String, owner: UInt64, column: Int, in realm: Realm) -> ManagedListLocation? {
        let info = realm.dynamicClassInfo(ownerClass)
        guard readOrStop({ try realm.readTable(info)?.contains(owner) }) == true else { return nil }
        // The owner's accessor, read by class name: the collection needs its realm and row, not
        // its model.
        let ownerObject = DynamicObject()
        ownerObject._manage(realm: realm, key: owner, info: info)
        return ManagedListLocation(owner: ManagedObjectState(ownerObject), column: column)
    }
}

extension LinkingObjects: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        guard let source else { stop("the linking objects of an unmanaged object are not confined; add the object to a realm first") }
        return _ConfinedDescription(kind: .linking(source))
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> LinkingObjects? {
        guard case .linking(let source) = description.kind else { return nil }
        return LinkingObjects(realm: realm, source: source)
    }
}
