import StorageEngine

/// An object in a migration: `oldObject` reads the old schema, `newObject` reads and writes the
/// new one, both by property name (`newObject!["age"] = 0`), as RealmSwift's `MigrationObject`.
public typealias MigrationObject = DynamicObject

/// The migration of a realm from an older schema version, handed to the configuration's
/// `migrationBlock` with the old version.
///
/// By the time the block runs the automatic changes are made: every object has the new
/// schema's properties, new ones holding their default, removed ones gone (`oldObject` still
/// reads them). The block converts what the automatic changes cannot:
///
///     config.schemaVersion = 2
///     config.migrationBlock = { migration, oldSchemaVersion in
///         if oldSchemaVersion < 2 {
///             migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
///                 let first = oldObject!["firstName"] as! String
///                 let last = oldObject!["lastName"] as! String
///                 newObject!["fullName"] = "\(first) \(last)"
///             }
///             migration.renameProperty(onType: "Dog", from: "yearsOld", to: "age")
///         }
///     }
///
/// The whole migration is one write transaction: if the block throws, or a change fails (a
/// value of the wrong type, primary keys left with duplicates), opening throws and the file is
/// left as it was. Use a `Migration` only inside the block.
public final class Migration {
    /// The schema stored in the file before the migration.
    public let oldSchema: Schema
    /// The schema of the models, which the file has after the migration.
    public let newSchema: Schema
    /// The handle being opened, in the migration's write transaction, with the new schema.
    private let realm: Realm
    /// A frozen handle on the version before the migration, with the old schema.
    private let oldRealm: Realm
    private let classes: [String: ClassMigration]
    /// Whether the migration block is still running: what the block calls stops once it has
    /// returned (`endBlock`).
    private var isInBlock = true

    init(realm: Realm, old: [String: ObjectSchema], new: [String: ObjectSchema], modelTypes: [String: Object.Type]) {
        self.realm = realm
        oldSchema = Schema(Array(old.values))
        newSchema = Schema(Array(new.values))
        oldRealm = Realm(frozen: FrozenRealmState(
            configuration: realm.configuration, database: realm.database, coordinator: realm.coordinator,
            snapshot: realm.transaction!.base, schemas: old))
        var classes: [String: ClassMigration] = [:]
        for className in Set(old.keys).union(new.keys) {
            let defaults = new[className].map { ClassMigration.defaults(of: $0, type: modelTypes[className], realm: realm) } ?? []
            classes[className] = ClassMigration(old: old[className], new: new[className], defaults: defaults, modelType: modelTypes[className], realm: realm)
        }
        self.classes = classes
        realm.migrationSource = oldRealm
    }

    // MARK: What the block calls

    /// Calls `block` with each object of the class named `typeName`: as it was before the
    /// migration (`oldObject`, read-only) and as it is now (`newObject`, writable).
    ///
    /// `oldObject` is nil for a class the old schema does not have (each object created in the
    /// migration is then enumerated), and `newObject` for a class the new schema does not have.
    /// An object deleted in the migration (by `delete(_:)` or `deleteData(forType:)`) is not
    /// enumerated again, and an object created in it has no `oldObject` and is not enumerated
    /// with the old schema's objects, as in RealmSwift.
    ///
    /// - Parameters:
    ///   - typeName: The class name.
    ///   - block: Called once per object.
    /// - Throws: What `block` throws; the migration then fails and the file is left as it was.
    public func enumerateObjects(
        ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) throws -> Void
    ) rethrows {
        checkInBlock()
        materializeAll()
        let tableName = SchemaStore.tableName(forClass: typeName)
        let oldInfo = oldSchema[typeName] == nil ? nil : oldRealm.dynamicClassInfo(typeName)
        let newInfo = newSchema[typeName] == nil ? nil : realm.dynamicClassInfo(typeName)
        let newTable = newInfo == nil ? nil : realm.transaction?.tableIfPresent(tableName)
        if let oldInfo {
            let keys = readOrStop { try self.oldRealm.snapshot().tableIfPresent(tableName)?.keys() ?? [] }
            for key in keys {
                let oldObject = oldRealm.accessor(of: DynamicObject.self, key: key, info: oldInfo)
                guard let newInfo else {
                    try block(oldObject, nil)
                    continue
                }
                // An object deleted in the migration is skipped, as RealmSwift skips it.
                guard let newTable, readOrStop({ try newTable.contains(key) }) else { continue }
                try block(oldObject, realm.accessor(of: DynamicObject.self, key: key, info: newInfo))
            }
        } else if let newInfo, let newTable {
            for key in readOrStop({ try newTable.keys() }) {
                try block(nil, realm.accessor(of: DynamicObject.self, key: key, info: newInfo))
            }
        }
    }

    /// Creates an object of the class named `typeName` in the new schema.
    ///
    /// - Important: The class must not be an `EmbeddedObject`: an embedded object is made by
    ///   setting it on its parent (`newObject!["address"] = ["street": "Main"]`).
    ///
    /// - Parameters:
    ///   - typeName: The class name.
    ///   - value: The property values: a dictionary by property name, an array in property
    ///     order, or an object (an unmanaged one, an `oldObject`) whose properties of the same
    ///     names give them. A property it does not give takes the model's default (for a
    ///     link the model's `init()` sets, a new object made from that one).
    /// - Returns: The new object.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        checkInBlock()
        materializeAll()
        guard let migration = classes[typeName], let schema = migration.new else {
            stop("the new schema has no class '\(typeName)'; its classes are \(newSchema.objectSchema.map(\.className))")
        }
        require(!schema.isEmbedded, "'\(typeName)' is an EmbeddedObject, which cannot be created on its own; set it on the property of the object that holds it, as newObject![\"property\"] = [\"name\": value]")
        return realm.dynamicCreate(typeName, value: value, defaults: migration.defaults, modelType: migration.modelType)
    }

    /// Deletes `object`, a `newObject` of this migration or one `create` returned.
    ///
    /// - Parameter object: The object to delete.
    public func delete(_ object: MigrationObject) {
        checkInBlock()
        materializeAll()
        realm.delete(object)
    }

    /// Deletes every object of the class named `typeName`. For a class the new schema does not
    /// have, the class is gone with its data whether or not this is called.
    ///
    /// - Parameter typeName: The class name.
    /// - Returns: Whether the old or the new schema has the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        checkInBlock()
        materializeAll()
        if newSchema[typeName] != nil { realm.delete(realm.dynamicObjects(typeName)) }
        return oldSchema[typeName] != nil || newSchema[typeName] != nil
    }

    /// Renames the property `oldName` of the class named `typeName` to `newName`, keeping its
    /// values (and lists) in every object; the new property's index follows the model.
    ///
    /// The old schema must have `oldName` and not `newName`, the new schema `newName` and not
    /// `oldName`, with the same type (a required property may become optional, and an
    /// optional one required: nulls then become the default). Otherwise the migration fails.
    ///
    /// - Parameters:
    ///   - typeName: The class name.
    ///   - oldName: The property's name in the old schema.
    ///   - newName: The property's name in the new schema.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        checkInBlock()
        guard let migration = classes[typeName], let old = migration.old, let new = migration.new else {
            realm.fail(RealmError(code: .schemaMismatch, message: "cannot rename '\(typeName).\(oldName)': both the old and the new schema must have class '\(typeName)'"))
            return
        }
        do {
            try migration.renameProperty(from: oldName, to: newName, old: old, new: new)
            realm.bumpStamp()
        } catch {
            realm.fail(error)
        }
    }

    /// Stops unless called on the realm's thread while the migration block runs.
    private func checkInBlock() {
        realm.checkThread()
        require(isInBlock, "this Migration was used after its migration block returned; call its methods only inside the block (the objects it handed out stay usable)")
    }

    // MARK: Before and after the block

    /// Marks the block as returned (or thrown out of): what it calls stops from then on.
    func endBlock() {
        isInBlock = false
        realm.migrationSource = nil
    }

    /// Makes the automatic changes: every table in the new schema's layout.
    func applyAutomaticChanges() throws {
        try RealmError.translating {
            for className in classes.keys.sorted() { try classes[className]!.applyAutomaticChanges() }
        }
        realm.bumpStamp()
    }

    /// Rewrites the rows of every class whose columns change (see `ClassMigration.materialize`):
    /// before the block first reads or writes objects, since any write may reach another class
    /// (a delete clears the links to the object).
    private func materializeAll() {
        do {
            try RealmError.translating {
                for className in classes.keys.sorted() { try classes[className]!.materialize() }
            }
        } catch {
            realm.fail(error)
        }
    }

    /// Rewrites what the block left untouched, then checks and indexes it: each primary key
    /// unique.
    func finish() throws {
        materializeAll()
        if let failure = realm.transactionFailure { throw failure }
        try RealmError.translating {
            for className in classes.keys.sorted() { try classes[className]!.finish() }
        }
    }
}
