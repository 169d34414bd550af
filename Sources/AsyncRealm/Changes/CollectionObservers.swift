import StorageEngine

/// `results.changes` (and the linking objects' stream, which observes live results): the keys
/// of the previous element are kept, and compared with the keys now.
final class ResultsObserver<Element: Object>: ChangeObserver {
    let results: Results<Element>
    let paths: ObservedPaths
    private var keys: [UInt64] = []

    init(results: Results<Element>, paths: ObservedPaths) {
        self.results = results
        self.paths = paths
    }

    var isFinished: Bool { false }
    var hasInitial: Bool { true }

    func initial() -> RealmCollectionChange<Results<Element>>? {
        keys = results.keys
        return .initial(results)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> RealmCollectionChange<Results<Element>>? {
        guard paths.isTouched(by: changes) || results.membership(mayChangeWith: changes) else { return nil }
        let newKeys: [UInt64]
        if results.membership(mayChangeWith: changes) {
            newKeys = results.keys
        } else {
            // Which objects the results hold, and their order, cannot have changed: no need to
            // evaluate the query again (for a large sorted collection, the bulk of the cost).
            results.adopt(keys)
            newKeys = keys
        }
        let modified = paths.modifiedKeys(in: changes, realm: results.handle)
        let diff = CollectionDiff.ofKeys(old: keys, new: newKeys, modified: modified)
        keys = newKeys
        guard !diff.isEmpty else { return nil }
        return .update(results, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }

    func rebase() {
        keys = results.keys
    }
}

/// `list.changes` and `set.changes`: the collection's stored elements are kept, and compared
/// with the elements now.
final class ListObserver<Collection>: ChangeObserver {
    let list: Collection
    let location: ManagedListLocation
    /// For a list of objects, what counts as a modification of an element.
    let paths: ObservedPaths?
    private let listTable: String
    private var elements: [RowValue] = []
    private(set) var isFinished = false

    init(list: Collection, location: ManagedListLocation, paths: ObservedPaths?) {
        self.list = list
        self.location = location
        self.paths = paths
        listTable = ListStore.tableName(forClass: location.owner.info.schema.className,
                                        property: location.owner.info.schema.storedProperties[location.column])
    }

    var hasInitial: Bool { true }

    func initial() -> RealmCollectionChange<Collection>? {
        elements = location.realm.isInvalidated(location.owner) ? [] : location.values()
        return .initial(list)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> RealmCollectionChange<Collection>? {
        let ownerTable = location.owner.info.tableName
        let listChanged = changes.tables[listTable] != nil || changes.tables[ownerTable].map { table in
            table.deleted.contains(location.owner.key) || table.modified[location.owner.key].map { $0.isEmpty || $0.contains(location.column) } == true
        } == true
        guard listChanged || paths?.isTouched(by: changes) == true else { return nil }
        let realm = location.realm
        let ownerDeleted = realm.isInvalidated(location.owner)
        let newElements = ownerDeleted ? [] : location.values()
        let modified = paths?.modifiedKeys(in: changes, realm: realm) ?? []
        let diff = CollectionDiff.ofSequence(old: elements, new: newElements) { value in
            if case .objectKey(let key) = value { return modified.contains(key) }
            return false
        }
        elements = newElements
        // The collection of a deleted object is gone: its elements are reported deleted, and the
        // stream ends.
        if ownerDeleted { isFinished = true }
        guard !diff.isEmpty else { return isFinished ? .update(list, deletions: [], insertions: [], modifications: []) : nil }
        return .update(list, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }

    func rebase() {
        elements = location.realm.isInvalidated(location.owner) ? [] : location.values()
    }
}

/// `map.changes`: the map's stored entries are kept, and compared with the entries now, key by
/// key.
final class MapObserver<Key: _MapKey, Value: RealmCollectionValue>: ChangeObserver {
    let map: Map<Key, Value>
    let location: ManagedListLocation
    /// For a map of objects, what counts as a modification of a value.
    let paths: ObservedPaths?
    private let entriesTable: String
    private var entries: [MapStore.Entry] = []
    private(set) var isFinished = false

    init(map: Map<Key, Value>, location: ManagedListLocation, paths: ObservedPaths?) {
        self.map = map
        self.location = location
        self.paths = paths
        entriesTable = ListStore.tableName(forClass: location.owner.info.schema.className,
                                           property: location.owner.info.schema.storedProperties[location.column])
    }

    var hasInitial: Bool { true }

    func initial() -> RealmMapChange<Map<Key, Value>>? {
        rebase()
        return .initial(map)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> RealmMapChange<Map<Key, Value>>? {
        let ownerTable = location.owner.info.tableName
        let mapChanged = changes.tables[entriesTable] != nil || changes.tables[ownerTable].map { table in
            table.deleted.contains(location.owner.key) || table.modified[location.owner.key].map { $0.isEmpty || $0.contains(location.column) } == true
        } == true
        guard mapChanged || paths?.isTouched(by: changes) == true else { return nil }
        let realm = location.realm
        let ownerDeleted = realm.isInvalidated(location.owner)
        let newEntries = ownerDeleted ? [] : location.entries()
        let modifiedObjects = paths?.modifiedKeys(in: changes, realm: realm) ?? []
        let diff = Self.diff(old: entries, new: newEntries) { value in
            if case .objectKey(let key) = value { modifiedObjects.contains(key) } else { false }
        }
        entries = newEntries
        if ownerDeleted { isFinished = true }
        guard !diff.deletions.isEmpty || !diff.insertions.isEmpty || !diff.modifications.isEmpty || isFinished else { return nil }
        let key = { (text: String) in Key(_mapKeyString: text) }
        return .update(map, deletions: diff.deletions.map(key), insertions: diff.insertions.map(key), modifications: diff.modifications.map(key))
    }

    /// The keys of `old` that `new` has not (deletions), of `new` that `old` has not
    /// (insertions), and of both whose values differ or `isModified` (modifications).
    static func diff(
        old: [MapStore.Entry], new: [MapStore.Entry], isModified: (RowValue) -> Bool
    ) -> (deletions: [String], insertions: [String], modifications: [String]) {
        let oldValues = Dictionary(old.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { _, last in last })
        let newKeys = Set(new.map { Array($0.key.utf8) })
        let deletions = old.filter { !newKeys.contains(Array($0.key.utf8)) }.map(\.key)
        var insertions: [String] = [], modifications: [String] = []
        for entry in new {
            guard let oldValue = oldValues[Array(entry.key.utf8)] else {
                insertions.append(entry.key)
                continue
            }
            if !oldValue.isIdentical(to: entry.value) || isModified(entry.value) { modifications.append(entry.key) }
        }
        return (deletions, insertions, modifications)
    }

    func rebase() {
        entries = location.realm.isInvalidated(location.owner) ? [] : location.entries()
    }
}
