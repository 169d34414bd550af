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
    /// Set once the object is managed by a realm. (Exclusivity is unchecked: every property
    /// access reads it, and it is set once, never during an access.)
    @exclusivity(unchecked) @usableFromInline var managed: ManagedObjectState? {
        didSet { unretainedManaged = managed.map { Unmanaged.passUnretained($0) } }
    }
    /// `managed`, unretained: what property accessors use, so that reading a property counts
    /// no references for it. Valid as long as `managed` holds the same state.
    @exclusivity(unchecked) @usableFromInline private(set) var unretainedManaged: Unmanaged<ManagedObjectState>?

    public required init() {}

    /// The class name the schema uses for this type.
    public class var className: String { String(describing: self) }

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
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        guard let mine = managed, let theirs = object.managed else { return self === object }
        return mine.key == theirs.key && mine.info.schema.className == theirs.info.schema.className
            && mine.realm.database.shared === theirs.realm.database.shared
    }
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
