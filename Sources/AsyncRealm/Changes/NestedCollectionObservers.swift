import StorageEngine

/// `changes` of a list held in an `AnyRealmValue` (see `NestedCollectionLocation`): its stored
/// elements are kept, and compared with the elements after each change of the realm. The
/// whole mixed value is stored in one place, so there is no finer sign of what changed: every
/// version is read again, and a version that leaves the list as it was produces nothing.
final class NestedListObserver<Element: RealmCollectionValue>: ChangeObserver {
    let list: List<Element>
    let location: NestedCollectionLocation
    private var elements: [RowValue] = []
    private(set) var isFinished = false

    init(list: List<Element>, location: NestedCollectionLocation) {
        self.list = list
        self.location = location
    }

    var hasInitial: Bool { true }

    func initial() -> RealmCollectionChange<List<Element>>? {
        rebase()
        return .initial(list)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> RealmCollectionChange<List<Element>>? {
        let current = location.listElements()
        let diff = CollectionDiff.ofSequence(old: elements, new: current ?? []) { _ in false }
        elements = current ?? []
        // A list no longer there (its object deleted, its value changed) is reported emptied,
        // and the stream ends.
        if current == nil { isFinished = true }
        guard !diff.isEmpty || isFinished else { return nil }
        return .update(list, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }

    func rebase() {
        elements = location.listElements() ?? []
    }
}

/// `changes` of a dictionary held in an `AnyRealmValue`: its stored entries are kept, and
/// compared key by key with the entries after each change of the realm.
final class NestedMapObserver<Key: _MapKey, Value: RealmCollectionValue>: ChangeObserver {
    let map: Map<Key, Value>
    let location: NestedCollectionLocation
    private var entries: [MapStore.Entry] = []
    private(set) var isFinished = false

    init(map: Map<Key, Value>, location: NestedCollectionLocation) {
        self.map = map
        self.location = location
    }

    var hasInitial: Bool { true }

    func initial() -> RealmMapChange<Map<Key, Value>>? {
        rebase()
        return .initial(map)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> RealmMapChange<Map<Key, Value>>? {
        let current = location.dictionaryEntries()
        let diff = MapObserver<Key, Value>.diff(old: entries, new: current ?? []) { _ in false }
        entries = current ?? []
        if current == nil { isFinished = true }
        guard !diff.deletions.isEmpty || !diff.insertions.isEmpty || !diff.modifications.isEmpty || isFinished else { return nil }
        let key = { (text: String) in Key(_mapKeyString: text) }
        return .update(map, deletions: diff.deletions.map(key), insertions: diff.insertions.map(key), modifications: diff.modifications.map(key))
    }

    func rebase() {
        entries = location.dictionaryEntries() ?? []
    }
}
