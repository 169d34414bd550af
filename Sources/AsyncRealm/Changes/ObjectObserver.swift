import StorageEngine

/// `object.changes`: the properties of one object that changed, with their values before and
/// after, read from the two versions.
final class ObjectObserver<T: Object>: ChangeObserver {
    let object: T
    let managed: ManagedObjectState
    let paths: ObservedPaths
    private(set) var isFinished = false

    init(object: T, managed: ManagedObjectState, paths: ObservedPaths) {
        self.object = object
        self.managed = managed
        self.paths = paths
    }

    var hasInitial: Bool { false }

    func initial() -> ObjectChange<T>? { nil }

    func rebase() {}

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> ObjectChange<T>? {
        guard paths.isTouched(by: changes) else { return nil }
        let realm = managed.realm
        let schema = managed.info.schema
        let table = changes.tables[paths.tableName]
        if table?.deleted.contains(managed.key) == true || realm.isInvalidated(managed) {
            isFinished = true
            return .deleted
        }
        var changed = Set<Int>()
        if let columns = table?.modified[managed.key] {
            changed = columns.isEmpty ? Set(schema.storedProperties.indices) : columns
        }
        for (column, property) in schema.storedProperties.enumerated() where property.isCollection {
            let elements = ListStore.tableName(forClass: schema.className, property: property)
            guard let listChanges = changes.tables[elements] else { continue }
            let owner = managed.key
            if listChanges.inserted.contains(where: { ListStore.owner(ofKey: $0) == owner })
                || listChanges.deleted.contains(where: { ListStore.owner(ofKey: $0) == owner })
                || listChanges.modified.keys.contains(where: { ListStore.owner(ofKey: $0) == owner }) {
                changed.insert(column)
            }
        }
        if let observed = paths.columns { changed.formIntersection(observed) }
        var propertyChanges = changed.sorted().map { column in
            let property = schema.storedProperties[column]
            return PropertyChange(name: property.name,
                                  oldValue: value(of: property, column: column, in: old),
                                  newValue: value(of: property, column: column, in: new))
        }
        // Links whose objects changed (not the links themselves) count as changes of the link.
        for link in paths.links where !changed.contains(link.column) {
            let targets = link.target.modifiedKeys(in: changes, realm: realm)
            guard !targets.isEmpty, targets.contains(where: { paths.owners(linkingTo: $0, through: link, realm: realm).contains(managed.key) }) else { continue }
            propertyChanges.append(PropertyChange(name: link.property.name, oldValue: nil,
                                                  newValue: value(of: link.property, column: link.column, in: new)))
        }
        guard !propertyChanges.isEmpty else { return nil }
        return .change(object, propertyChanges)
    }

    /// The value of a property in `snapshot`, as `value(forKey:)` gives it (objects read at
    /// the realm's current version).
    private func value(of property: Property, column: Int, in snapshot: Snapshot) -> Any? {
        let realm = managed.realm
        guard let table = snapshot.tableIfPresent(managed.info.tableName),
              let stored = readOrStop({ try table.value(managed.key, column: column) }) else { return nil }
        if property.isMap {
            let elements = ListStore.tableName(forClass: managed.info.schema.className, property: property)
            guard let map = snapshot.tableIfPresent(elements) else { return [:] as [String: Any?] }
            let entries = readOrStop { try MapStore.entries(in: map, owner: managed.key, count: ListStore.count(stored)) }
            return realm.dynamicDictionary(entries, of: property)
        }
        if property.isCollection {
            let elements = ListStore.tableName(forClass: managed.info.schema.className, property: property)
            guard let list = snapshot.tableIfPresent(elements) else { return [] as [Any?] }
            let values = readOrStop { try ListStore.elements(in: list, owner: managed.key, count: ListStore.count(stored)) }
            return values.map { realm.dynamicValue($0, of: property) }
        }
        return realm.dynamicValue(stored, of: property)
    }
}
