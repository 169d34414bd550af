import StorageEngine

/// Where a list or dictionary held in an `AnyRealmValue` of a managed object lives: the stored
/// mixed value it is in (a property, an element of a list of mixed values, or a map's value)
/// and the positions and keys that lead from that value down to it.
///
/// The whole mixed value is stored in one place (see `MixedValue`), so the collection is read
/// by decoding that value and walking the path, and changed by storing the value again with
/// the collection replaced. A path that no longer leads to a collection of its kind (the
/// property was given another value, an element before it was removed) leaves the collection
/// invalidated.
struct NestedCollectionLocation {
    /// One step down from a mixed value: a list's element or a dictionary's value.
    enum Step: Hashable, Sendable {
        case index(Int)
        case key(String)
    }

    /// The stored mixed value the path starts from.
    enum Root {
        /// An `AnyRealmValue` property: column `column` of the object.
        case property(owner: ManagedObjectState, column: Int)
        /// The element at `position` of a list of mixed values.
        case element(ManagedListLocation, position: Int)
        /// The value under `key` of a map of mixed values.
        case entry(ManagedListLocation, key: String)
    }

    let root: Root
    let path: [Step]

    var owner: ManagedObjectState {
        switch root {
        case .property(let owner, _): owner
        case .element(let location, _), .entry(let location, _): location.owner
        }
    }

    var realm: Realm { owner.realm }

    /// The location one step further down.
    func appending(_ step: Step) -> NestedCollectionLocation {
        NestedCollectionLocation(root: root, path: path + [step])
    }

    /// What the user calls the collection in messages: "the list in 'Item.value'".
    func noun(_ kind: String) -> String {
        let property: String
        switch root {
        case .property(let owner, let column):
            property = "'\(owner.info.schema.className).\(owner.info.schema.storedProperties[column].name)'"
        case .element(let location, let position):
            property = "element \(position) of the \(location.noun)"
        case .entry(let location, let key):
            property = "the value under '\(key)' of the \(location.noun)"
        }
        let steps = path.map { step in
            switch step {
            case .index(let position): "[\(position)]"
            case .key(let key): "['\(key)']"
            }
        }
        return "\(kind) in \(property)\(steps.joined())"
    }

    // MARK: Reading

    /// The list's elements' stored forms; stops if the path no longer leads to a list.
    func existingListElements() -> [RowValue] {
        guard let elements = listElements() else { stopGone("list") }
        return elements
    }

    /// The dictionary's entries' stored forms; stops if the path no longer leads to one.
    func existingDictionaryEntries() -> [MapStore.Entry] {
        guard let entries = dictionaryEntries() else { stopGone("dictionary") }
        return entries
    }

    private func stopGone(_ kind: String) -> Never {
        stop("the \(noun(kind)) no longer exists (its object was deleted, or the value holding it changed); read it again from its object")
    }

    /// Whether the path still leads to a dictionary (or, if not `dictionary`, a list).
    func holdsCollection(dictionary: Bool) -> Bool {
        dictionary ? dictionaryEntries() != nil : listElements() != nil
    }

    /// The list's elements' stored forms; nil if the path no longer leads to a list.
    func listElements() -> [RowValue]? {
        guard case .list(let elements)? = current() else { return nil }
        return elements
    }

    /// The dictionary's entries' stored forms, in key order; nil if the path no longer leads
    /// to a dictionary.
    func dictionaryEntries() -> [MapStore.Entry]? {
        guard case .dictionary(let entries)? = current() else { return nil }
        return entries
    }

    /// The mixed value at the end of the path; nil if the object is gone or the path leads
    /// nowhere.
    private func current() -> MixedValue? {
        guard !realm.isInvalidated(owner), var value = rootValue() else { return nil }
        for step in path {
            guard let next = Self.child(of: value, at: step) else { return nil }
            value = next
        }
        return MixedValue(stored: value)
    }

    /// The stored value the path starts from; nil if there is none any more.
    private func rootValue() -> RowValue? {
        switch root {
        case .property(let owner, let column):
            return realm.column(column, of: owner)
        case .element(let location, let position):
            guard position < location.count else { return nil }
            return location.element(at: position)
        case .entry(let location, let key):
            return location.read { table, count in try MapStore.value(for: key, in: table, owner: location.owner.key, count: count) }
        }
    }

    /// The stored value one step down from `value`; nil if `value` holds no such element.
    private static func child(of value: RowValue, at step: Step) -> RowValue? {
        switch (MixedValue(stored: value), step) {
        case (.list(let elements), .index(let position)):
            return elements.indices.contains(position) ? elements[position] : nil
        case (.dictionary(let entries), .key(let key)):
            return entries.first { MapStore.sameKey($0.key, key) }?.value
        default:
            return nil
        }
    }


    // MARK: Writing

    /// Stores `list` as the list's elements.
    func store(list elements: [AnyRealmValue]) {
        checkWritable("list")
        let stored = elements.map { $0.storedForm(realm: realm, depth: path.count + 1) }
        replace(with: MixedValue.list(stored).stored, kind: "list")
    }

    /// Stores `entries` (in key order, keys distinct) as the dictionary's entries.
    func store(dictionary entries: [(key: String, value: AnyRealmValue)]) {
        checkWritable("dictionary")
        let stored = entries.map { (key: $0.key, value: $0.value.storedForm(realm: realm, depth: path.count + 1)) }
        replace(with: MixedValue.dictionary(stored).stored, kind: "dictionary")
    }

    private func checkWritable(_ kind: String) {
        realm.checkThread()
        require(!realm.isFrozen, "the \(noun(kind)) is frozen and cannot be changed; change its live version (thaw() gives it) in a write transaction")
        require(realm.isWriting, "cannot change the \(noun(kind)) outside a write transaction; make the change inside realm.write { }")
    }

    /// Stores the root value again with the collection at the end of the path replaced by
    /// `value`.
    private func replace(with value: RowValue, kind: String) {
        guard let rootValue = rootValue(), !realm.isInvalidated(owner),
              let replaced = Self.replacing(in: rootValue, at: path[...], with: value) else { stopGone(kind) }
        switch root {
        case .property(let owner, let column):
            realm.write(stored: replaced, column: column, of: owner)
        case .element(let location, let position):
            location.change { table, count in
                try ListStore.set(replaced, at: position, in: table, owner: location.owner.key)
                return count
            }
        case .entry(let location, let key):
            location.change { table, count in
                try MapStore.set(replaced, for: key, in: table, owner: location.owner.key, count: count)
            }
        }
    }

    /// `value` with what `path` leads to replaced by `replacement`; nil if the path leads
    /// nowhere in it.
    private static func replacing(in value: RowValue, at path: ArraySlice<Step>, with replacement: RowValue) -> RowValue? {
        guard let step = path.first else { return replacement }
        switch (MixedValue(stored: value), step) {
        case (.list(var elements), .index(let position)):
            guard elements.indices.contains(position),
                  let child = replacing(in: elements[position], at: path.dropFirst(), with: replacement) else { return nil }
            elements[position] = child
            return MixedValue.list(elements).stored
        case (.dictionary(var entries), .key(let key)):
            guard let position = entries.firstIndex(where: { MapStore.sameKey($0.key, key) }),
                  let child = replacing(in: entries[position].value, at: path.dropFirst(), with: replacement) else { return nil }
            entries[position].value = child
            return MixedValue.dictionary(entries).stored
        default:
            return nil
        }
    }
}
