import StorageEngine

/// What makes an object managed: its realm, its row, and the row as last read.
///
/// `@Persisted`'s accessor, inlined into each model, calls `read` and `write` here: the plain
/// value case runs specialised for the property's type, and everything that does not depend on
/// the type (finding the column, reading the row, checking the transaction) runs in the
/// non-generic functions it calls.
@usableFromInline
final class ManagedObjectState {
    @usableFromInline let realm: Realm
    let key: UInt64
    /// Unowned: the realm, which this state keeps alive, keeps every class info it made for as
    /// long as it lives; not counting the reference saves two atomic operations per accessor.
    unowned(unsafe) let info: ClassInfo
    /// The encoded row as read at `rowStamp` of the realm, at `rowRange` of `rowBuffer`; read
    /// again when the realm has changed since. (Exclusivity is unchecked: only this realm's
    /// thread touches them, and never re-entrantly.)
    @exclusivity(unchecked) var rowBuffer: RowBuffer?
    @exclusivity(unchecked) var rowRange: Range<Int> = 0..<0
    @exclusivity(unchecked) var rowStamp = -1
    /// Set when the object was deleted through this accessor or its write was cancelled.
    var isInvalidated = false

    init(realm: Realm, key: UInt64, info: ClassInfo) {
        self.realm = realm
        self.key = key
        self.info = info
    }

    /// The property reached through `storage`, read from the realm.
    @inlinable
    func read<V: _Persistable, O: Object>(_: V.Type, storage: ReferenceWritableKeyPath<O, Persisted<V>>) -> V {
        if let column = valueColumn(forStorage: storage) {
            return V._fromStorage(storedValue(column: column), realm: realm)
        }
        return realm.read(V.self, of: self, storage: storage)
    }

    /// Sets the property reached through `storage`; needs a write transaction.
    @inlinable
    func write<V: _Persistable, O: Object>(_ value: V, storage: ReferenceWritableKeyPath<O, Persisted<V>>) {
        if let column = valueColumn(forStorage: storage) {
            checkWritable()
            setStoredValue(value._toStorage(realm: realm), column: column)
            return
        }
        realm.write(value, of: self, storage: storage)
    }

    /// The column of the value property whose storage `keyPath` reaches; nil for a list,
    /// linking objects, or a key path no accessor has used yet (the generic path finds it).
    @usableFromInline
    func valueColumn(forStorage keyPath: AnyKeyPath) -> Int? {
        // A recorder has no row: its reads go to the generic path, which records them.
        guard !isRecorder else { return nil }
        return info.valueColumn(forStorage: keyPath)
    }

    /// Set on the state of a *recorder*, an instance used to learn which property a key path
    /// names (`Query`'s key paths): reading a property through it records the property's name
    /// in `recordedProperty` instead of reading a row.
    @exclusivity(unchecked) var isRecorder = false
    var recordedProperty = ""

    @usableFromInline
    func storedValue(column: Int) -> _StorageValue {
        if rowStamp == realm.stamp, let rowBuffer {
            realm.checkThread()
            return _StorageValue(rowBuffer.column(column, in: rowRange))
        }
        return _StorageValue(realm.column(column, of: self))
    }

    @usableFromInline
    func checkWritable() {
        realm.checkThread()
        precondition(!realm.isFrozen, "a frozen object cannot be changed; change its live version (thaw() gives it) in a write transaction")
        precondition(realm.transaction != nil, "cannot change a managed object outside a write transaction; make the change inside realm.write { }")
    }

    @usableFromInline
    func setStoredValue(_ value: _StorageValue, column: Int) {
        realm.write(stored: value.value, column: column, of: self)
    }
}
