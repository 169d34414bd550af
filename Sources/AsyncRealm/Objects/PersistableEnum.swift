/// An enum stored by its raw value, as RealmSwift's `PersistableEnum` is.
///
///     enum Size: Int, PersistableEnum { case small, medium, large }
///     final class Shirt: Object { @Persisted var size: Size }   // defaults to .small
///
/// The raw value is an integer type (`Int`, `Int8`, `Int16`, `Int32`, `Int64`), a `Float`, a
/// `Double` or a `String`, as in RealmSwift; a property without an initial value holds the first
/// case.
public protocol PersistableEnum: _PersistableInsideOptional, RealmCollectionValue, RawRepresentable, CaseIterable
where RawValue: _PersistableEnumRawValue {}

/// The raw value types a `PersistableEnum` can have: the integer types, `Float`, `Double` and
/// `String`.
public protocol _PersistableEnumRawValue: _Persistable {}
extension Int: _PersistableEnumRawValue {}
extension Int8: _PersistableEnumRawValue {}
extension Int16: _PersistableEnumRawValue {}
extension Int32: _PersistableEnumRawValue {}
extension Int64: _PersistableEnumRawValue {}
extension Float: _PersistableEnumRawValue {}
extension Double: _PersistableEnumRawValue {}
extension String: _PersistableEnumRawValue {}

extension PersistableEnum {
    public static var _persistedKind: _PersistedKind { RawValue._persistedKind }

    public static func _persistedDefault() -> Self {
        guard let first = allCases.first else {
            stop("\(Self.self) has no cases; a PersistableEnum needs at least one")
        }
        return first
    }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self {
        guard let value = Self(rawValue: RawValue._fromStorage(stored, realm: realm)) else {
            stop("the realm holds \(stored.value), which is no case of \(Self.self)")
        }
        return value
    }

    public func _toStorage(realm: Realm) -> _StorageValue { rawValue._toStorage(realm: realm) }

    /// A case, or the raw value of one.
    public static func _fromAny(_ value: Any?) -> Self? {
        if let value = value as? Self { return value }
        return RawValue._fromAny(value).flatMap(Self.init(rawValue:))
    }
}
