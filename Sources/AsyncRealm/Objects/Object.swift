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
    /// Set once the object is managed by a realm.
    var managed: ManagedObjectState?

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

/// What makes an object managed: its realm, its row, and the row as last read.
final class ManagedObjectState {
    let realm: Realm
    let key: UInt64
    let info: ClassInfo
    /// The row as read at `rowStamp` of the realm; reread when the realm has changed since.
    var row: [Value] = []
    var rowStamp = -1
    /// Set when the object was deleted through this accessor or its write was cancelled.
    var isInvalidated = false

    init(realm: Realm, key: UInt64, info: ClassInfo) {
        self.realm = realm
        self.key = key
        self.info = info
    }
}

/// What a realm knows of one model class: its schema, its table and its columns.
final class ClassInfo {
    let schema: ObjectSchema
    let type: Object.Type
    let tableName: String
    /// Column of each stored property, by name.
    let columns: [String: Int]
    /// How each property is read, by name: decided once so that a read needs no dynamic cast.
    let access: [String: PropertyAccess]
    /// Property names found for `@Persisted` storage key paths (see `Realm.propertyName`).
    var propertyNames: [AnyKeyPath: String] = [:]
    /// How the property behind a storage key path is read, by the key path's identity: one
    /// hash of a pointer per read. The key path is kept with it, so that its address cannot be
    /// reused by another key path while the entry exists.
    var accessByKeyPath: [ObjectIdentifier: (keyPath: AnyKeyPath, access: PropertyAccess)] = [:]
    /// Where each stored property's `@Persisted` storage sits in an instance, in column order.
    private var fields: [(offset: Int, type: PersistedPropertyDescribing.Type)]?

    /// The storage fields of the stored properties, found once from a sample instance.
    func storageFields(of sample: Object) -> [(offset: Int, type: PersistedPropertyDescribing.Type)] {
        if let fields { return fields }
        var types: [String: PersistedPropertyDescribing.Type] = [:]
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            for child in current.children {
                if let label = child.label, let persisted = child.value as? PersistedPropertyDescribing {
                    types[String(label.dropFirst())] = Swift.type(of: persisted)
                }
            }
            mirror = current.superclassMirror
        }
        let found = schema.storedProperties.map { property in
            guard let offset = PersistedFields.offset(of: property.name, in: type), let storage = types[property.name] else {
                preconditionFailure("cannot find the storage of '\(schema.className).\(property.name)'")
            }
            return (offset, storage)
        }
        fields = found
        return found
    }

    init(schema: ObjectSchema, type: Object.Type) {
        self.schema = schema
        self.type = type
        tableName = SchemaStore.tableName(forClass: schema.className)
        let columns = Dictionary(uniqueKeysWithValues: schema.storedProperties.enumerated().map { ($1.name, $0) })
        self.columns = columns
        access = Dictionary(uniqueKeysWithValues: schema.properties.map { property in
            let kind: PropertyAccess
            if property.type == .linkingObjects {
                kind = .linkingObjects(property)
            } else if property.isArray {
                kind = .list(column: columns[property.name]!)
            } else {
                kind = .value(column: columns[property.name]!)
            }
            return (property.name, kind)
        })
    }
}

/// How a property of a managed object is read.
enum PropertyAccess {
    /// A value in a column.
    case value(column: Int)
    /// A list in a column.
    case list(column: Int)
    /// Linking objects, computed from another class's links.
    case linkingObjects(Property)
}
