import Foundation
import StorageEngine

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
    var isSet = false
    var isMap = false
    /// For links, collections of links and linking objects: the linked class.
    var objectType: Object.Type?

    init(_ type: PropertyType, objectType: Object.Type? = nil) {
        self.type = type
        self.objectType = objectType
    }
}

/// A value as the storage engine holds it. Public only because `_Persistable` names it.
public struct _StorageValue {
    package var value: RowValue

    package init(_ value: RowValue) {
        self.value = value
    }
}

/// A type a `@Persisted` property can hold.
public protocol _Persistable {
    static var _persistedKind: _PersistedKind { get }
    /// The value a property holds when the model gives it no initial value.
    static func _persistedDefault() -> Self
    /// The value read from storage; `realm` resolves links. Stored values always have the
    /// property's type, so a mismatch is a corrupted file and stops.
    static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self
    /// Column `column` of `row`, `object`'s row as last read and current in `realm` (the
    /// object's realm), decoded straight from the row's bytes; nil when the type has no such
    /// read, when the column holds anything unexpected, or with `inPlaceOnly` when the read
    /// would call a function (see `RowCodec`'s typed reads): the caller then reads again
    /// without it, or through `_fromStorage`, which decides.
    static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Self?
    /// The value to store; `realm` adds linked unmanaged objects.
    func _toStorage(realm: Realm) -> _StorageValue
    /// `value` as this type, as `Object(value:)` and `setValue(_:forKey:)` accept it: the type
    /// itself, integers and floating-point numbers that convert exactly, nested dictionaries or
    /// arrays for objects, arrays for lists; nil if it does not convert.
    static func _fromAny(_ value: Any?) -> Self?
}

extension _Persistable {
    public static func _fromAny(_ value: Any?) -> Self? { value as? Self }
    public static func _fromCurrentRow(_ row: UnsafeRawBufferPointer, of object: Object, column: Int, inPlaceOnly: Bool, realm: Realm) -> Self? { nil }
}

func storageMismatch<T>(_ stored: _StorageValue, _ type: T.Type) -> Never {
    stop("the realm holds \(stored.value) where the schema says \(T.self); the file does not match its schema")
}

/// A type whose `Optional` a `@Persisted` property can hold.
public protocol _PersistableInsideOptional: _Persistable {}

/// A type a `List` or a `MutableSet` can hold: the primitive types, their optionals, and
/// objects. Hashable as in RealmSwift, so that a set's elements compare.
public protocol RealmCollectionValue: _Persistable, Hashable {}

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    public static var _persistedKind: _PersistedKind {
        var kind = Wrapped._persistedKind
        kind.isOptional = true
        return kind
    }

    public static func _persistedDefault() -> Self { nil }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self {
        if case .null = stored.value { return nil }
        return Wrapped._fromStorage(stored, realm: realm)
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        guard let wrapped = self else { return _StorageValue(.null) }
        return storedLink(wrapped, realm: realm)
    }

    public static func _fromAny(_ value: Any?) -> Self? {
        if isNull(value) { return .some(nil) }
        return Wrapped._fromAny(value).map { .some($0) }
    }
}

/// The elements of a sequence typed `Any` (a list or an array given as a value), typed `Any`.
/// (A loop: `Array(sequence)` on the opened existential crashes the Swift 6.3 compiler.)
func anyElements(of sequence: any Sequence) -> [Any] {
    var elements: [Any] = []
    for element in sequence { elements.append(element) }
    return elements
}

/// Whether a value typed `Any` stands for nil: `nil`, a nil `Optional` boxed in `Any`, or
/// `NSNull()`, which RealmSwift takes as nil in dictionaries and arrays of values.
func isNull(_ value: Any?) -> Bool {
    guard let value else { return true }
    if let optional = value as? OptionalProtocol { return optional.isNone }
    return value is NSNull
}

/// Lets a value typed `Any` that holds an `Optional` be recognised as one: nil, or its value.
protocol OptionalProtocol {
    var isNone: Bool { get }
    /// The value, typed `Any`; nil for none.
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
    var wrappedAny: Any? { map { $0 } }
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
    /// A fresh random UUID, as in RealmSwift: a model's `@Persisted(primaryKey: true) var id: UUID`
    /// gets a new key per object.
    public static func _persistedDefault() -> UUID { UUID() }
}

extension Decimal: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.decimal128) }
    public static func _persistedDefault() -> Decimal { 0 }
}

extension ObjectId: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.objectId) }
    /// A newly generated id, as in RealmSwift: a model's
    /// `@Persisted(primaryKey: true) var _id: ObjectId` gets a new key per object.
    public static func _persistedDefault() -> ObjectId { .generate() }
}

extension Object: _PersistableInsideOptional, RealmCollectionValue {
    public static var _persistedKind: _PersistedKind { _PersistedKind(.object, objectType: self) }
    public static func _persistedDefault() -> Self { Self() }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self {
        guard case .objectKey(let key) = stored.value else { storageMismatch(stored, Self.self) }
        return realm.accessor(of: self, key: key)
    }

    /// An object, or a new unmanaged one from a dictionary or an array of property values.
    public static func _fromAny(_ value: Any?) -> Self? {
        if let object = value as? Self { return object }
        guard let value, value is [String: Any?] || value is [Any?] else { return nil }
        let object = Self()
        return object.assign(value) == nil ? object : nil
    }

    /// A link to this object: adds it to `realm` first if it is unmanaged. An embedded object
    /// another object holds already fails the write transaction instead.
    public func _toStorage(realm: Realm) -> _StorageValue {
        guard realm.checkEmbeddedUnowned(self) else { return _StorageValue(.null) }
        return _StorageValue(.objectKey(realm.keyAddingIfNeeded(self)))
    }
}

// MARK: Storage conversions

extension Bool {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Bool {
        guard case .bool(let value) = stored.value else { storageMismatch(stored, Self.self) }
        return value
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.bool(self)) }
}

extension BinaryInteger where Self: _Persistable {
    public static func _fromAny(_ value: Any?) -> Self? {
        switch value {
        case let value as Self: return value
        case let value as any BinaryInteger: return Self(exactly: value)
        case let value as Double: return Self(exactly: value)
        case let value as Float: return Self(exactly: value)
        default: return nil
        }
    }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Self {
        guard case .int(let value) = stored.value, let converted = Self(exactly: value) else { storageMismatch(stored, Self.self) }
        return converted
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.int(Int64(self))) }
}

extension Float {
    public static func _fromAny(_ value: Any?) -> Float? {
        switch value {
        case let value as Float: return value
        case let value as Double: return Float(value)
        case let value as Int: return Float(value)
        default: return nil
        }
    }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Float {
        guard case .float(let value) = stored.value else { storageMismatch(stored, Self.self) }
        return value
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.float(self)) }
}

extension Double {
    public static func _fromAny(_ value: Any?) -> Double? {
        switch value {
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as Int: return Double(value)
        default: return nil
        }
    }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Double {
        guard case .double(let value) = stored.value else { storageMismatch(stored, Self.self) }
        return value
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.double(self)) }
}

extension String {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> String {
        guard case .string(let value) = stored.value else { storageMismatch(stored, Self.self) }
        return value
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.string(self)) }
}

extension Data {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Data {
        guard case .binary(let value) = stored.value else { storageMismatch(stored, Self.self) }
        return Data(value)
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.binary(Array(self))) }
}

extension Date {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Date {
        guard case .timestamp(let seconds, let nanoseconds) = stored.value else { storageMismatch(stored, Self.self) }
        return Date(storedSeconds: seconds, nanoseconds: nanoseconds)
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(storedTimestamp) }

    /// Seconds from 1970 to 2001, the reference date `Date` counts from.
    @usableFromInline static let referenceFrom1970: Int64 = 978_307_200

    /// The date stored as whole seconds since 1970 and nanoseconds.
    ///
    /// Reckoned from the reference date, as `Date` itself counts, with the 1970 offset taken
    /// off in whole seconds: going through `timeIntervalSince1970` rounded twice, and a date
    /// read back was not `==` to the one stored.
    @inlinable
    init(storedSeconds seconds: Int64, nanoseconds: Int32) {
        let (sinceReference, overflow) = seconds.subtractingReportingOverflow(Self.referenceFrom1970)
        let whole = overflow ? Double(seconds) - Double(Self.referenceFrom1970) : Double(sinceReference)
        // Whole seconds (most stored dates) skip the division, the slowest step of a date's
        // read: adding 0 would give `whole` back bit for bit anyway.
        self.init(timeIntervalSinceReferenceDate: nanoseconds == 0 ? whole : whole + Double(nanoseconds) / 1e9)
    }

    /// The date as stored: whole seconds since 1970 and nanoseconds.
    ///
    /// Every `Date` has a stored form, as in Realm: one past the range of 64-bit seconds
    /// (`Date(timeIntervalSinceReferenceDate: 1e20)`, `.infinity`) is clamped to the first or
    /// last instant that range holds, and NaN is stored as 1970-01-01 00:00:00 UTC
    /// (`Docs/Limits.md`). Writes and query arguments alike go through here.
    ///
    /// A `Date` holds a `Double` of seconds since 2001, whose spacing is coarser than a
    /// nanosecond for any date after 1970-01-02 or so: splitting it into whole seconds and the
    /// nearest nanosecond, both from 2001, and adding them back gives the same `Double`. The
    /// whole seconds are moved to 1970 in integers, which is exact.
    var storedTimestamp: RowValue {
        let interval = timeIntervalSinceReferenceDate
        guard !interval.isNaN else { return .timestamp(seconds: 0, nanoseconds: 0) }
        let last = RowValue.timestamp(seconds: .max, nanoseconds: 999_999_999)
        let first = RowValue.timestamp(seconds: .min, nanoseconds: 0)
        // 2^63: the first whole number of seconds Int64 does not hold; -2^63 it does.
        guard interval < 0x1p63 else { return last }
        guard interval >= -0x1p63 else { return first }
        var seconds = interval.rounded(.down)
        var nanoseconds = ((interval - seconds) * 1e9).rounded()
        if nanoseconds >= 1e9 { seconds += 1; nanoseconds -= 1e9 }
        guard seconds < 0x1p63 else { return last }
        let (since1970, overflow) = Int64(seconds).addingReportingOverflow(Self.referenceFrom1970)
        if overflow { return seconds > 0 ? last : first }
        return .timestamp(seconds: since1970, nanoseconds: Int32(nanoseconds))
    }
}

extension UUID {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> UUID {
        guard case .uuid(let bits) = stored.value else { storageMismatch(stored, Self.self) }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: bits >> UInt128(8 * (15 - index))) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.uuid(storedBits)) }

    /// The UUID as stored: its bytes as a big-endian 128-bit integer.
    var storedBits: UInt128 {
        withUnsafeBytes(of: uuid) { bytes in bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } }
    }
}

extension Decimal {
    /// Stored as its exact decimal text: no binary floating point in between.
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Decimal {
        guard case .string(let text) = stored.value, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            storageMismatch(stored, Self.self)
        }
        return value
    }
    public func _toStorage(realm: Realm) -> _StorageValue {
        _StorageValue(.string(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX"))))
    }
}

extension ObjectId {
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> ObjectId {
        guard case .binary(let bytes) = stored.value, bytes.count == 12 else { storageMismatch(stored, Self.self) }
        return ObjectId(bytes: bytes)
    }
    public func _toStorage(realm: Realm) -> _StorageValue { _StorageValue(.binary(bytes)) }
}

/// `value` stored where a value of type `Declared` is declared (a link `Base?`, a list
/// `List<Base>`). An object of a subclass of the declared class is refused: each model class is
/// stored in a table of its own, so the link would name a row of the subclass's table and read
/// back an unrelated object of the base class. The write fails with `invalidValue`, as in Realm.
func storedLink<Declared: _Persistable>(_ value: Declared, realm: Realm) -> _StorageValue {
    if Declared.self is Object.Type, let object = value as? Object, type(of: object) != Declared.self {
        realm.fail(RealmError(
            code: .invalidValue,
            message: "a link or list of '\(Declared.self)' cannot hold a '\(type(of: object))': each model class is stored on its own, so it holds objects of exactly its class"))
        return _StorageValue(.null)
    }
    return value._toStorage(realm: realm)
}
