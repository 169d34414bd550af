import StorageEngine

/// The base class of every model.
///
///     final class Dog: Object {
///         @Persisted(indexed: true) var name: String
///         @Persisted var age: Int = 1
///         @Persisted var owner: Person?
///     }
///
/// Properties marked `@Persisted` are stored; other stored properties are ignored. Subclasses
/// need an initialiser without arguments (the one Swift synthesises is enough): the schema is
/// discovered by creating an instance and reflecting on it, once per class.
///
/// An unmanaged object (never added to a realm) holds its values like any Swift object. Once
/// added, or when read from a realm, it is *managed*: its properties read and write the realm,
/// so every accessor of the same object sees a change at once.
open class Object {
    // What makes the object managed (its realm, its row, the row as last read) lives in the
    // object itself, so that an accessor is one allocation, not an object and a state beside
    // it; `ManagedObjectState` is the view of these fields the rest of the module works with.
    // The names start with two underscores so that they cannot meet a model's property names:
    // `@Persisted var key` declares `_key`, its wrapper's storage, in the model class.
    // (Exclusivity is unchecked: only the realm's thread touches them, never re-entrantly.)

    /// The realm, unretained; nil while the object is unmanaged. Kept alive by `__rowBuffer`
    /// (a `RowBuffer` holds its realm) or, for an object made without its row or looked up by
    /// primary key (whose buffer the realm keeps to reuse, and which holds no realm), by
    /// `__realmOwner`: an accessor made with its row (what iterating `Results` makes) counts no
    /// reference to the realm, and a property read borrows it instead of retaining it.
    @exclusivity(unchecked) @usableFromInline final var __managedRealm: Unmanaged<Realm>?
    /// The realm, counted, when the object was made managed without a row to keep it alive.
    @exclusivity(unchecked) final var __realmOwner: Realm?
    @exclusivity(unchecked) final var __key: UInt64 = 0
    /// Unowned: the realm, which the object keeps alive, keeps every class info it made for as
    /// long as it lives.
    @exclusivity(unchecked) final unowned(unsafe) var __info: ClassInfo?
    /// The encoded row as read at `__rowStamp` of the realm: `__row` points into `__rowBuffer`,
    /// which the object keeps alive. Read again when the realm has changed since.
    @exclusivity(unchecked) final var __rowBuffer: RowBuffer?
    @exclusivity(unchecked) @usableFromInline final var __row = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) @usableFromInline final var __rowStamp = -1
    /// Where in `__row` the last column read starts, so that reading the next one resumes there.
    @exclusivity(unchecked) @usableFromInline final var __rowCursor = ColumnCursor()
    /// Set when the object was deleted through this accessor.
    @exclusivity(unchecked) final var __wasInvalidated = false
    /// The realm's `invalidations` when the accessor was made: one made before the realm's
    /// last `invalidate()` is invalid.
    @exclusivity(unchecked) final var __invalidations = 0
    /// The write that added the object, if this accessor added it: a cancelled one leaves the
    /// object invalidated (see `WriteAdditions`).
    @exclusivity(unchecked) final var __addedIn: WriteAdditions?
    /// Set on a *recorder*, an instance used to learn which property a key path names
    /// (`Realm.propertyName(of:in:)`).
    @exclusivity(unchecked) final var __isRecorder = false

    /// The managed state of the object, or nil while it is unmanaged.
    var managed: ManagedObjectState? {
        __managedRealm == nil ? nil : ManagedObjectState(self)
    }

    /// An unmanaged object with every property at its default value.
    public required init() {}

    /// The class name the schema uses for this type.
    ///
    /// - Returns: The type's name without its module (`Dog` for `MyApp.Dog`).
    public class func className() -> String { String(describing: self) }

    /// The name of the primary key property, for a model that names it here rather than with
    /// `@Persisted(primaryKey: true)` (RealmSwift's older way); nil by default.
    ///
    ///     override class func primaryKey() -> String? { "id" }
    ///
    /// - Returns: The name of a `@Persisted` property of the class, or nil.
    open class func primaryKey() -> String? { nil }

    /// The names of the properties to index, for a model that names them here rather than with
    /// `@Persisted(indexed: true)`; none by default.
    ///
    /// - Returns: Names of `@Persisted` properties of the class.
    open class func indexedProperties() -> [String] { [] }

    /// The names of `@Persisted` properties not to store; none by default. (Properties without
    /// `@Persisted` are never stored.) An ignored property of a managed object keeps its value
    /// in the accessor, as a plain property does.
    ///
    /// - Returns: Names of `@Persisted` properties of the class.
    open class func ignoredProperties() -> [String] { [] }

    /// The names the file gives properties, where they differ from the model's: a map from a
    /// `@Persisted` property's name to its column name, as RealmSwift's custom column names.
    /// None by default.
    ///
    /// The model's names are the ones to use everywhere: in queries, sorts, key-value coding,
    /// dynamic objects and change streams. Only the file holds the column names, so a
    /// property can be renamed in the model, keeping its column name here, without a
    /// migration. (A migration block reads old objects by column name, as the file has them.)
    ///
    /// ```
    /// override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    /// ```
    ///
    /// - Returns: Column names by property name.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// The schema of this object's class: its name and its stored properties.
    public var objectSchema: ObjectSchema {
        if let info = managed?.info { return info.schema }
        do {
            return try SchemaDiscovery.objectSchema(for: type(of: self))
        } catch {
            stop("\(error)")
        }
    }

    /// The realm managing this object, or nil if it is unmanaged.
    public var realm: Realm? { managed?.realm }

    /// Whether the object was deleted from its realm (or added in a write that was cancelled),
    /// so that it can no longer be read.
    public var isInvalidated: Bool {
        guard let managed else { return false }
        return managed.realm.isInvalidated(managed)
    }

    /// Whether `object` is this same stored object (same realm file, same row), even through
    /// a different accessor instance. Unmanaged objects are only the same as themselves.
    ///
    /// - Parameter object: Another object, or nil.
    /// - Returns: Whether both are the same stored object (or the same unmanaged instance).
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        guard let mine = managed, let theirs = object.managed else { return self === object }
        return mine.key == theirs.key && mine.info.schema.className == theirs.info.schema.className
            && mine.realm.database.isSameFile(as: theirs.realm.database)
    }

    /// The object's class and each stored property with its value, one per line, as
    /// RealmSwift prints it; links and collections are shown five levels deep. A model may
    /// override it.
    open var description: String { realmDescription(depth: RealmDescription.maximumDepth) }
}

/// Objects are equal when they are the same instance or accessors of the same stored object
/// (`isSameObject(as:)`), as RealmSwift's objects compare; they hash accordingly, so an object's
/// hash changes when it is added to a realm (do not keep unmanaged objects in a set across
/// `add`).
extension Object: Equatable, Hashable {
    public static func == (left: Object, right: Object) -> Bool {
        left === right || left.isSameObject(as: right)
    }

    public func hash(into hasher: inout Hasher) {
        if let managed {
            hasher.combine(managed.info.schema.className)
            hasher.combine(managed.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
