/// A type of the app's own stored as one of the types a property can hold, as RealmSwift's
/// `CustomPersistable`:
///
///     struct Email: CustomPersistable, Hashable {
///         typealias PersistedType = String
///         let address: String
///         init(persistedValue: String) { address = persistedValue }
///         var persistableValue: String { address }
///     }
///     final class User: Object {
///         @Persisted var email: Email
///         @Persisted var previous: List<Email>
///     }
///
/// The file stores `persistableValue`, so the schema says `String` here, queries compare the
/// persisted value (`filter("email == 'a@b.c'")`, or `where { $0.email == email }`), and a
/// property without an initial value starts at `init(persistedValue:)` of the persisted type's
/// zero. It works in properties, optionals, lists, sets and maps.
public protocol CustomPersistable: _CustomPersistable {
    /// The value read back from the realm.
    ///
    /// - Parameter persistedValue: The stored value.
    init(persistedValue: PersistedType)
}

/// A `CustomPersistable` whose conversion from the stored value can fail, as RealmSwift's
/// `FailableCustomPersistable`: reading a value it refuses stops the program with a message
/// naming the value and the type (for an optional property too), since the file holds what
/// the model cannot represent.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value read back from the realm, or nil if `persistedValue` is not one.
    ///
    /// - Parameter persistedValue: The stored value.
    init?(persistedValue: PersistedType)
}

/// What `CustomPersistable` and `FailableCustomPersistable` share. Public only because their
/// signatures name it.
public protocol _CustomPersistable: _PersistableInsideOptional, RealmCollectionValue {
    /// The stored type: one of the types a property can hold.
    associatedtype PersistedType: _PersistableInsideOptional & RealmCollectionValue
    /// The value to store.
    var persistableValue: PersistedType { get }
    /// `persistedValue` as this type, nil if it refuses it.
    static func _converted(_ persistedValue: PersistedType) -> Self?
}

extension CustomPersistable {
    public static func _converted(_ persistedValue: PersistedType) -> Self? { Self(persistedValue: persistedValue) }
}

extension FailableCustomPersistable {
    public static func _converted(_ persistedValue: PersistedType) -> Self? { Self(persistedValue: persistedValue) }
}

extension _CustomPersistable {
    public static var _persistedKind: _PersistedKind { PersistedType._persistedKind }

    public static func _persistedDefault() -> Self {
        let zero = PersistedType._persistedDefault()
        guard let value = _converted(zero) else {
            stop("\(Self.self) refuses \(PersistedType.self)'s default value \(zero), so a property of it needs an initial value: @Persisted var value = \(Self.self)(...)")
        }
        return value
    }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self {
        let persisted = PersistedType._fromStorage(stored, realm: realm)
        guard let value = _converted(persisted) else {
            stop("the realm holds \(persisted), which \(Self.self).init(persistedValue:) refuses; accept it, or migrate the stored values")
        }
        return value
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        storedLink(persistableValue, realm: realm)
    }

    /// A value of this type, or one of the persisted type that converts.
    public static func _fromAny(_ value: Any?) -> Self? {
        if let value = value as? Self { return value }
        return PersistedType._fromAny(value).flatMap(_converted)
    }
}
