import Foundation

/// What the schema needs to know about a type a `@Persisted` property can hold.
///
/// Public only because `@Persisted`'s generic signature names it; not for conformances outside
/// AsyncRealm.
public struct _PersistedKind: @unchecked Sendable {
    // @unchecked: `objectType` is a metatype, which carries no mutable state; the compiler does
    // not yet treat metatypes of non-Sendable classes as Sendable.
    var type: PropertyType
    var isOptional = false
    var isArray = false
    /// For links, lists of links and linking objects: the linked class.
    var objectType: Object.Type?

    init(_ type: PropertyType, objectType: Object.Type? = nil) {
        self.type = type
        self.objectType = objectType
    }
}

/// A type a `@Persisted` property can hold.
public protocol _Persistable {
    static var _persistedKind: _PersistedKind { get }
    /// The value a property holds when the model gives it no initial value.
    static func _persistedDefault() -> Self
}

/// A type whose `Optional` a `@Persisted` property can hold.
public protocol _PersistableInsideOptional: _Persistable {}

/// A type a `List` can hold: the primitive types, their optionals, and objects.
public protocol RealmCollectionValue: _Persistable {}

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    public static var _persistedKind: _PersistedKind {
        var kind = Wrapped._persistedKind
        kind.isOptional = true
        return kind
    }

    public static func _persistedDefault() -> Self { nil }
}

extension Optional: RealmCollectionValue where Wrapped: _PersistableInsideOptional & RealmCollectionValue {}

extension Bool: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.bool) }
    public static func _persistedDefault() -> Bool { false }
}

extension Int: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.int) }
    public static func _persistedDefault() -> Int { 0 }
}

extension Int8: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.int) }
    public static func _persistedDefault() -> Int8 { 0 }
}

extension Int16: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.int) }
    public static func _persistedDefault() -> Int16 { 0 }
}

extension Int32: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.int) }
    public static func _persistedDefault() -> Int32 { 0 }
}

extension Int64: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.int) }
    public static func _persistedDefault() -> Int64 { 0 }
}

extension Float: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.float) }
    public static func _persistedDefault() -> Float { 0 }
}

extension Double: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.double) }
    public static func _persistedDefault() -> Double { 0 }
}

extension String: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.string) }
    public static func _persistedDefault() -> String { "" }
}

extension Data: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.data) }
    public static func _persistedDefault() -> Data { Data() }
}

extension Date: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.date) }
    /// RealmSwift's default for a non-optional date without an initial value: the reference date.
    public static func _persistedDefault() -> Date { Date(timeIntervalSince1970: 0) }
}

extension UUID: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.uuid) }
    public static func _persistedDefault() -> UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension Decimal: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.decimal128) }
    public static func _persistedDefault() -> Decimal { 0 }
}

extension ObjectId: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.objectId) }
    public static func _persistedDefault() -> ObjectId { ObjectId() }
}

extension Object: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.object, objectType: self) }
    public static func _persistedDefault() -> Self { Self() }
}
