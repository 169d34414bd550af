import StorageEngine

/// What makes an object managed: its realm, its row, and the row as last read, seen through
/// the object that holds them (`Object`'s underscored fields).
///
/// A value that holds its object: code that works with the managed side of an object (lists
/// and their owners, observers, deleting, reading by name) takes one of these, and holding one
/// keeps the object and its row alive. `@Persisted`'s accessor, inlined into each model, skips
/// it and calls the object's `_read` and `_write` below: the plain value case runs specialised
/// for the property's type, and everything that does not depend on the type (finding the
/// column, reading the row, checking the transaction) runs in the non-generic functions it
/// calls.
@usableFromInline
struct ManagedObjectState {
    @usableFromInline let object: Object

    @usableFromInline
    init(_ object: Object) {
        assert(object.__managedRealm != nil, "an unmanaged object has no managed state")
        self.object = object
    }

    /// The realm managing the object.
    var realm: Realm { object.__managedRealm.unsafelyUnwrapped.takeUnretainedValue() }
    var key: UInt64 { object.__key }
    var info: ClassInfo { object.__info.unsafelyUnwrapped }
    var row: UnsafeRawBufferPointer { object.__row }
    /// Set when the object was deleted through this accessor, the write that added it was
    /// cancelled, or the realm was invalidated since the accessor was made.
    var isInvalidated: Bool {
        get {
            object.__wasInvalidated || object.__addedIn?.wasCancelled == true || object.__invalidations != realm.invalidations
        }
        nonmutating set { object.__wasInvalidated = newValue }
    }
    var isRecorder: Bool { object.__isRecorder }

    /// Remembers the row at `range` of `buffer` as read at `stamp`.
    func setRow(_ range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        object._setRow(range, of: buffer, stamp: stamp)
    }

    /// Whether `row` is the row as the realm reads it now.
    var hasCurrentRow: Bool { object.__rowStamp == realm.stamp && object.__rowBuffer != nil }

    func checkWritable() {
        realm.checkThread()
        require(!realm.isFrozen, "a frozen object cannot be changed; change its live version (thaw() gives it) in a write transaction")
        require(realm.isWriting, "cannot change a managed object outside a write transaction; make the change inside realm.write { }")
    }
}

extension Object {
    /// Makes this unmanaged object the accessor of row `key` of `realm`; the row is read when a
    /// property first needs it.
    func _manage(realm: Realm, key: UInt64, info: ClassInfo) {
        __managedRealm = .passUnretained(realm)
        __realmOwner = realm
        __key = key
        __info = info
        __invalidations = realm.invalidations
    }

    /// Makes this unmanaged object the accessor of row `key`, with its row at `range` of
    /// `buffer` as read at `stamp`; the buffer keeps the realm alive.
    func _manage(key: UInt64, info: ClassInfo, row range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        __managedRealm = .passUnretained(buffer.realm)
        __key = key
        __info = info
        __invalidations = buffer.realm.invalidations
        _setRow(range, of: buffer, stamp: stamp)
    }

    /// Makes this accessor, which nothing else references, the accessor of row `key` (see
    /// `Results.Iterator`): everything the last row left is reset.
    func _reuse(key: UInt64, info: ClassInfo, row range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        __realmOwner = nil
        __wasInvalidated = false
        _manage(key: key, info: info, row: range, of: buffer, stamp: stamp)
    }

    func _setRow(_ range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        // A buffer of another realm would not keep this object's realm alive.
        assert(buffer.realm === __managedRealm?.takeUnretainedValue(), "a row read through another realm")
        __row = buffer.bytes(at: range)
        // A reused accessor usually stays in its buffer: no reference to count again.
        if __rowBuffer !== buffer { __rowBuffer = buffer }
        __rowStamp = stamp
        __rowCursor = ColumnCursor()
    }

    /// The property in slot `slot` (see `PropertySlots`) of this managed object, read from the
    /// realm.
    @inlinable
    final func _read<V: _Persistable>(_: V.Type, slot: UInt16) -> V {
        let realm = __managedRealm.unsafelyUnwrapped
        if let column = PropertySlots.column(of: slot) {
            return realm._withUnsafeGuaranteedRef { realm in
                if let value = V._fromCurrentRow(of: self, column: column, realm: realm) { return value }
                return V._fromStorage(_storedValue(column: column, in: realm), realm: realm)
            }
        }
        return realm.takeUnretainedValue().read(V.self, of: ManagedObjectState(self), slot: slot)
    }

    /// Sets the property in slot `slot` of this managed object; needs a write transaction.
    @inlinable
    final func _write<V: _Persistable>(_ value: V, slot: UInt16) {
        let realm = __managedRealm.unsafelyUnwrapped.takeUnretainedValue()
        if let column = PropertySlots.column(of: slot) {
            _checkWritable()
            _setStoredValue(value._toStorage(realm: realm), column: column)
            return
        }
        realm.write(value, of: ManagedObjectState(self), slot: slot)
    }

    /// Column `column` of the row, read through `realm`, which is this object's.
    @usableFromInline
    final func _storedValue(column: Int, in realm: Realm) -> _StorageValue {
        // The row is read through the pointer: no reference counting on the way to the bytes.
        if __rowStamp == realm.stamp {
            realm.checkThread()
            return _StorageValue(RowBuffer.column(column, of: __row, cursor: &__rowCursor, table: __info.unsafelyUnwrapped.schema.className))
        }
        return _StorageValue(realm.column(column, of: ManagedObjectState(self)))
    }

    /// The row as last read, if it is the row `realm` (this object's) reads now; what the
    /// typed reads of `_Persistable._fromCurrentRow` decode.
    @inline(__always)
    final func _currentRow(in realm: Realm) -> UnsafeRawBufferPointer? {
        guard __rowStamp == realm.stamp else { return nil }
        realm.checkThread()
        return __row
    }

    @usableFromInline
    final func _checkWritable() {
        ManagedObjectState(self).checkWritable()
    }

    @usableFromInline
    final func _setStoredValue(_ value: _StorageValue, column: Int) {
        let managed = ManagedObjectState(self)
        managed.realm.write(stored: value.value, column: column, of: managed)
    }
}
