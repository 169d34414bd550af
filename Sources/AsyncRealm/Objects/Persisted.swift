import StorageEngine

/// Marks a stored property of an `Object` subclass as persisted.
///
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted(indexed: true) var name: String
///     @Persisted var age: Int = 1                // default from the initialiser
///     @Persisted var owner: Person?              // links are always optional
///     @Persisted var dogs: List<Dog>
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///
/// A property without an initial value starts at its type's zero (0, "", false, nil, an empty
/// list, the first case of an enum), except an `ObjectId` or a `UUID`, which starts at a new
/// one, as in RealmSwift: a model's `@Persisted(primaryKey: true) var _id: ObjectId` needs no
/// initial value for each object to have its own key.
///
/// The initialisers and the accessor are `@inlinable` so that they are specialised for each
/// model in the module that declares it: a generic, unspecialised accessor would spend more
/// time looking up type metadata than reading the value. The storage is the value, one byte
/// of options and, in a managed object, the property's two-byte slot (see `PropertySlots`; a
/// `LinkingObjects` value carries its origin property itself), so models stay small and cheap
/// to create and free.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    @usableFromInline var value: Value
    @usableFromInline var options: PersistedOptions
    /// In a managed object, which property this is, written by the realm when it manages the
    /// object (see `PropertySlots`); zero in an unmanaged one.
    @usableFromInline var managedSlot: UInt16 = 0

    /// A stored property starting at its type's default (zero, empty, nil, a fresh id).
    @inlinable
    public init() {
        self.init(value: Value._persistedDefault(), options: PersistedOptions())
    }

    /// A stored property whose new objects start at `wrappedValue`.
    ///
    /// - Parameter wrappedValue: The initial value, as in `@Persisted var age = 1`.
    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, options: PersistedOptions(hasInitialValue: true))
    }

    /// A primary key: `Int`, `String`, `UUID` or `ObjectId`, optional or not.
    ///
    /// - Parameter primaryKey: Whether the property is the class's primary key.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(value: Value._persistedDefault(), options: PersistedOptions(isPrimaryKey: primaryKey))
    }

    /// A primary key with an initial value.
    ///
    /// - Parameters:
    ///   - wrappedValue: The initial value.
    ///   - primaryKey: Whether the property is the class's primary key.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, options: PersistedOptions(isPrimaryKey: primaryKey, hasInitialValue: true))
    }

    /// An indexed property: `Bool`, the integer types, `String`, `Date`, `UUID` or `ObjectId`.
    ///
    /// - Parameter indexed: Whether to keep an index on the property.
    @inlinable
    public init(indexed: Bool) {
        self.init(value: Value._persistedDefault(), options: PersistedOptions(isIndexed: indexed))
    }

    /// An indexed property with an initial value.
    ///
    /// - Parameters:
    ///   - wrappedValue: The initial value.
    ///   - indexed: Whether to keep an index on the property.
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, options: PersistedOptions(isIndexed: indexed, hasInitialValue: true))
    }

    /// The objects linking to this one through `originProperty` of `Element`.
    ///
    /// - Parameter originProperty: The name of `Element`'s link or list property that points here.
    @inlinable
    public init<Element: Object>(originProperty: String) where Value == LinkingObjects<Element> {
        self.init(value: LinkingObjects(originProperty: originProperty), options: PersistedOptions())
    }

    @inlinable
    init(value: Value, options: PersistedOptions) {
        self.value = value
        self.options = options
    }

    @available(*, unavailable, message: "@Persisted is only for properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted is only for properties of Object subclasses") }
        set { fatalError("@Persisted is only for properties of Object subclasses") }
    }

    /// Reads and writes go through the enclosing object: an unmanaged object keeps the value
    /// here, a managed one reads and writes its realm.
    @inlinable
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        // Always inlined into the model's accessor, where the key paths are literals the
        // optimiser turns into direct field access; left as a call, the unmanaged case would go
        // through the runtime's key-path machinery on every access.
        // Slot zero in a managed object: a property the model ignores (`ignoredProperties()`),
        // which keeps its value here as in an unmanaged one.
        @inline(__always) get {
            let slot = object[keyPath: storageKeyPath].managedSlot
            guard object.__managedRealm != nil, slot != 0 else { return object[keyPath: storageKeyPath].value }
            return object._read(Value.self, slot: slot)
        }
        @inline(__always) set {
            let slot = object[keyPath: storageKeyPath].managedSlot
            guard object.__managedRealm != nil, slot != 0 else {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            object._write(newValue, slot: slot)
        }
    }
}

/// The options given to `@Persisted`, as bits.
@usableFromInline
struct PersistedOptions: Sendable, Hashable {
    @usableFromInline var bits: UInt8

    @inlinable
    init(isPrimaryKey: Bool = false, isIndexed: Bool = false, hasInitialValue: Bool = false) {
        bits = (isPrimaryKey ? 1 : 0) | (isIndexed ? 2 : 0) | (hasInitialValue ? 8 : 0)
    }

    var isPrimaryKey: Bool { bits & 1 != 0 }
    var isIndexed: Bool { bits & 2 != 0 }
    /// Whether the model gives the property an initial value (`@Persisted var age = 1`): its
    /// default. Without one, a non-optional value property is required in `create`'s value.
    var hasInitialValue: Bool { bits & 8 != 0 }
}

/// What schema discovery and `Realm.add` read from a `@Persisted` property found by reflection.
protocol PersistedPropertyDescribing {
    var kind: _PersistedKind { get }
    var options: PersistedOptions { get }
    /// The origin property of a `LinkingObjects` property.
    var originProperty: String? { get }
    /// Where `managedSlot` sits in the storage.
    static var managedSlotOffset: Int { get }
    /// The unmanaged value, as the realm stores it.
    func storageValue(realm: Realm) -> StorageEngine.RowValue
    /// The unmanaged value.
    var anyValue: Any { get }
    /// Stores `value`, converted to the property's type, into the `Persisted` at `pointer`;
    /// returns false if it cannot be converted.
    static func assign(_ value: Any?, at pointer: UnsafeMutableRawPointer) -> Bool
    /// Property `name` of a managed object, typed `Any`.
    static func read(from realm: Realm, managed: ManagedObjectState, named name: String) -> Any
    /// Sets property `name` of a managed object from a value typed `Any`.
    static func write(_ value: Any?, to realm: Realm, managed: ManagedObjectState, named name: String)
    /// Whether `value` converts to the property's type.
    static func accepts(_ value: Any?) -> Bool
    /// The stored form of the unmanaged value in the `Persisted` at `pointer`.
    static func storageValue(at pointer: UnsafeMutableRawPointer, realm: Realm) -> StorageEngine.RowValue
}

extension Persisted: PersistedPropertyDescribing {
    var kind: _PersistedKind { Value._persistedKind }

    var originProperty: String? { (value as? LinkingObjectsDescribing)?.originProperty }

    static var managedSlotOffset: Int { MemoryLayout<Self>.offset(of: \Self.managedSlot)! }

    func storageValue(realm: Realm) -> StorageEngine.RowValue { value._toStorage(realm: realm).value }

    var anyValue: Any { value }

    static func assign(_ value: Any?, at pointer: UnsafeMutableRawPointer) -> Bool {
        guard let converted = Value._fromAny(value) else { return false }
        pointer.assumingMemoryBound(to: Persisted<Value>.self).pointee.value = converted
        return true
    }

    static func accepts(_ value: Any?) -> Bool { Value._fromAny(value) != nil }

    static func storageValue(at pointer: UnsafeMutableRawPointer, realm: Realm) -> StorageEngine.RowValue {
        pointer.assumingMemoryBound(to: Persisted<Value>.self).pointee.value._toStorage(realm: realm).value
    }

    static func read(from realm: Realm, managed: ManagedObjectState, named name: String) -> Any {
        realm.read(Value.self, of: managed, named: name)
    }

    static func write(_ value: Any?, to realm: Realm, managed: ManagedObjectState, named name: String) {
        guard let converted = Value._fromAny(value) else {
            stop("property '\(name)' of '\(managed.info.schema.className)' is \(Value.self), which \(value.map { "\(type(of: $0))" } ?? "nil") is not")
        }
        realm.write(converted, of: managed, named: name)
    }
}
