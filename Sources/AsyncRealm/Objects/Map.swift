import Foundation
import StorageEngine

/// The type of a `Map`'s keys: `String`, as in RealmSwift.
public protocol _MapKey: Hashable, Sendable {
    /// The key as stored.
    var _mapKeyString: String { get }
    /// The key stored as `string`.
    init(_mapKeyString string: String)
}

extension String: _MapKey {
    /// The string itself.
    public var _mapKeyString: String { self }
    /// The stored string.
    ///
    /// - Parameter string: The key as stored.
    public init(_mapKeyString string: String) { self = string }
}

/// One entry of a `Map`, as iterating the map gives it.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The entry's key.
    public var key: Key
    /// The value stored under the key.
    public var value: Value
}

/// A to-many property from `String` keys to values or (optional) objects, as RealmSwift's `Map`.
///
///     class Player: Object {
///         @Persisted var scores: Map<String, Int>
///         @Persisted var pets: Map<String, Pet?>
///     }
///     player.scores["level 1"] = 1_200
///     player.scores["level 1"] = nil          // removes the key
///
/// An unmanaged map holds its entries in memory. The map of a managed object reads and writes
/// its realm: every accessor sees a change at once, and changing it needs a write transaction.
/// Entries are in the order of their keys' UTF-8 bytes. A key may not be empty, contain a `.` or
/// start with `$` (they would be ambiguous in a query's key path), and a key is the same key
/// when its UTF-8 bytes are. Deleting an object a map holds leaves its key, with the value nil.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: _CollectionBase, Sequence {
    /// An unmanaged map's entries, in key order.
    private var storedEntries: [SingleMapEntry<Key, Value>] = []

    /// The entries an unmanaged map holds, or a dictionary held in a managed `AnyRealmValue`
    /// (`nested`) holds now, in key order: such a dictionary is read whole and stored whole
    /// again after a change.
    private var unmanaged: [SingleMapEntry<Key, Value>] {
        get {
            guard let nested else { return storedEntries }
            return nestedEntries(nested)
        }
        _modify {
            guard let nested else {
                yield &storedEntries
                return
            }
            var entries = nestedEntries(nested)
            yield &entries
            nested.store(dictionary: entries.map { (key: $0.key._mapKeyString, value: $0.value as! AnyRealmValue) })
        }
    }

    private func nestedEntries(_ nested: NestedCollectionLocation) -> [SingleMapEntry<Key, Value>] {
        nested.existingDictionaryEntries().map { entry in
            let value = AnyRealmValue(mixed: MixedValue(stored: entry.value), realm: nested.realm, at: nested.appending(.key(entry.key)))
            return SingleMapEntry(key: Key(_mapKeyString: entry.key), value: value as! Value)
        }
    }

    /// An empty unmanaged map.
    public init() {
        super.init(location: nil)
    }

    override init(location: ManagedListLocation?) {
        super.init(location: location)
    }

    /// The dictionary held in the mixed value at `nested`.
    override init(nested: NestedCollectionLocation) {
        super.init(nested: nested)
    }

    /// The number of entries.
    public var count: Int { location?.count ?? unmanaged.count }

    /// Whether the map has no entries.
    public var isEmpty: Bool { count == 0 }

    /// The keys, in order.
    public var keys: [Key] { entries.map(\.key) }

    /// The values, in the order of their keys.
    public var values: [Value] { entries.map(\.value) }

    /// Iterates the entries as they are when iteration begins.
    ///
    /// - Returns: An iterator over the entries, in key order.
    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        entries.makeIterator()
    }

    /// The entries as `(key, value)` tuples, in key order, as RealmSwift's
    /// `asKeyValueSequence()`.
    ///
    /// - Returns: The entries, as they are now.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        entries.map { ($0.key, $0.value) }
    }

    /// Whether the map has an entry for `key`.
    ///
    /// - Parameter key: A key.
    /// - Returns: True if the map holds a value (perhaps nil) under `key`.
    public func contains(key: Key) -> Bool {
        guard let location else { return unmanagedSearch(key._mapKeyString).found }
        return Self.stored(key._mapKeyString, at: location) != nil
    }

    /// The value stored under a key; setting nil removes the key.
    ///
    /// For a map of optional values, `map[key] = .some(nil)` stores nil under the key.
    ///
    /// - Parameter key: A key; one that is empty, holds `.` or starts with `$` stops when set.
    public subscript(key: Key) -> Value? {
        get { storedValue(for: key) }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Stores `value` under `key`, replacing the value there.
    ///
    /// - Parameters:
    ///   - value: A value, or an object (added to the realm if it is unmanaged).
    ///   - key: A non-empty key without `.` that does not start with `$`.
    public func updateValue(_ value: Value, forKey key: Key) {
        let text = Self.checked(key)
        guard let location else {
            switch unmanagedSearch(text) {
            case (let position, true): unmanaged[position].value = value
            case (let position, false): unmanaged.insert(SingleMapEntry(key: key, value: value), at: position)
            }
            return
        }
        let stored = location.stored(value)
        location.change { table, count in
            try MapStore.set(stored, for: text, in: table, owner: location.owner.key, count: count)
        }
    }

    /// Removes the entry for `key`, if there is one (an object it held stays in the realm).
    ///
    /// - Parameter key: The key to remove.
    public func removeObject(for key: Key) {
        let text = key._mapKeyString
        guard let location else {
            if case (let position, true) = unmanagedSearch(text) { unmanaged.remove(at: position) }
            return
        }
        location.checkWritable()
        location.change { table, count in
            try MapStore.remove(text, in: table, owner: location.owner.key, count: count)
        }
    }

    /// Removes every entry (the objects themselves stay in the realm).
    public func removeAll() {
        guard let location else { return unmanaged.removeAll() }
        location.checkWritable()
        location.change { table, count in
            try ListStore.removeAll(in: table, owner: location.owner.key, count: count)
            return 0
        }
    }

    /// Adds the entries of `other`; `combine` decides between the value here and the one given
    /// for a key the map has.
    ///
    /// - Parameters:
    ///   - other: Key-value pairs (a dictionary, or another map's `asKeyValueSequence()`).
    ///   - combine: Given the current and the new value, returns the value to keep.
    /// - Throws: What `combine` throws; the entries merged before it threw stay.
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in other {
            if let current = self[key] {
                updateValue(try combine(current, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Adds the entries of a dictionary; `combine` decides between the value here and the one
    /// given for a key the map has.
    ///
    /// - Parameters:
    ///   - other: The entries to add.
    ///   - combine: Given the current and the new value, returns the value to keep.
    /// - Throws: What `combine` throws.
    public func merge(_ other: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// Adds the entries of another map; `combine` decides between the value here and the one
    /// given for a key the map has.
    ///
    /// - Parameters:
    ///   - other: The map whose entries to add.
    ///   - combine: Given the value here and the new one, returns the value to keep.
    /// - Throws: What `combine` throws.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }

    /// Whether an entry of the map satisfies `predicate`, as RealmSwift's
    /// `contains(where:)` with a key and a value.
    ///
    /// - Parameter predicate: Given an entry's key and value, whether it is the one looked for.
    /// - Returns: True if some entry satisfies it.
    /// - Throws: What `predicate` throws.
    public func contains(where predicate: (_ key: Key, _ value: Value) throws -> Bool) rethrows -> Bool {
        try entries.contains { try predicate($0.key, $0.value) }
    }

    /// The value for `key`, typed `Any` (key-value coding on a map, as RealmSwift's).
    ///
    /// - Parameter key: A key of the map.
    /// - Returns: The value, or nil if the map has no such key.
    public func value(forKey key: String) -> Any? {
        self[Key(_mapKeyString: key)].map { $0 as Any }
    }

    /// Stores a value typed `Any` under `key`; nil removes the key.
    ///
    /// - Parameters:
    ///   - value: A value of the map's value type, or nil.
    ///   - key: The key.
    public func setValue(_ value: Any?, forKey key: String) {
        guard !isNull(value) else { return removeObject(for: Key(_mapKeyString: key)) }
        guard let converted = Value._fromAny(value) else {
            stop("a Map<String, \(Value.self)> cannot hold \(value.map { "\(type(of: $0))" } ?? "nil") (key '\(key)')")
        }
        updateValue(converted, forKey: Key(_mapKeyString: key))
    }

    // MARK: Entries

    /// The entries now, in key order.
    private var entries: [SingleMapEntry<Key, Value>] {
        guard let location else { return unmanaged }
        return location.entries().map { entry in
            SingleMapEntry(key: Key(_mapKeyString: entry.key), value: location.element(entry.value, as: Value.self, at: .entry(location, key: entry.key)))
        }
    }

    private func storedValue(for key: Key) -> Value? {
        let text = key._mapKeyString
        guard let location else {
            guard case (let position, true) = unmanagedSearch(text) else { return nil }
            return unmanaged[position].value
        }
        guard let stored = Self.stored(text, at: location) else { return nil }
        // A map read by property name holds `DynamicObject`s, as RealmSwift's, so a key whose
        // object was deleted reads as no value.
        if stored == .null, Value.self == DynamicObject.self { return nil }
        return location.element(stored, as: Value.self, at: .entry(location, key: text))
    }

    /// The value stored under `key` in the map at `location`, nil (not `.null`) if it has none.
    private static func stored(_ key: String, at location: ManagedListLocation) -> RowValue? {
        location.read { table, count in try MapStore.value(for: key, in: table, owner: location.owner.key, count: count) }
    }

    private func unmanagedSearch(_ key: String) -> (position: Int, found: Bool) {
        let position = unmanaged.partitionPoint { !MapStore.precedes($0.key._mapKeyString, key) }
        return (position, position < unmanaged.count && MapStore.sameKey(unmanaged[position].key._mapKeyString, key))
    }

    /// The key as stored, after checking that a query can name it.
    private static func checked(_ key: Key) -> String {
        let text = key._mapKeyString
        require(!text.isEmpty && !text.contains(".") && !text.hasPrefix("$"),
                "'\(text)' cannot be a Map key: keys must not be empty, contain '.' or start with '$' (a query's key path could not name them); choose another key")
        return text
    }
}

extension Array {
    /// The first index whose element `belongs` says is in the second part; the array must be
    /// partitioned by it (all elements for which it is false first).
    fileprivate func partitionPoint(_ belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A map's entries with their values typed `Any`, for evaluating a query on an unmanaged
/// object.
protocol MapEntriesReading {
    var anyEntries: [(key: String, value: Any)] { get }
}

extension Map: MapEntriesReading {
    var anyEntries: [(key: String, value: Any)] { entries.map { ($0.key._mapKeyString, $0.value as Any) } }
}

extension Map: ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> Map { Map(location: location) }
}

extension Map: _Persistable {
    public static var _persistedKind: _PersistedKind {
        var kind = Value._persistedKind
        kind.isMap = true
        return kind
    }

    public static func _persistedDefault() -> Map { Map() }

    /// A new unmanaged map from a dictionary of values its values accept; an empty one from nil
    /// or `NSNull()`, as in RealmSwift.
    public static func _fromAny(_ value: Any?) -> Map? {
        if isNull(value) { return Map() }
        if let map = value as? Map { return map }
        guard let dictionary = value as? [String: Any?] else { return nil }
        let map = Map()
        for (key, item) in dictionary {
            guard let converted = Value._fromAny(item) else { return nil }
            map.updateValue(converted, forKey: Key(_mapKeyString: key))
        }
        return map
    }

    /// An unmanaged copy of a stored map (managed maps are built by `Realm.read`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> Map {
        guard let entries = MapStore.decode(stored.value) else { storageMismatch(stored, Self.self) }
        let map = Map()
        map.unmanaged = MapStore.normalized(entries).map {
            SingleMapEntry(key: Key(_mapKeyString: $0.key), value: Value._fromStorage(_StorageValue($0.value), realm: realm))
        }
        return map
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        if let location, location.owner.realm === realm { return _StorageValue(MapStore.encode(location.entries())) }
        return _StorageValue(MapStore.encode(map { ($0.key._mapKeyString, storedLink($0.value, realm: realm).value) }))
    }
}
