import StorageEngine

/// How an accessor becomes managed, and how its `@Persisted` properties read and write the
/// realm (the entry points `Persisted`'s inlined accessor calls).
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
    @usableFromInline
    func _reuse(key: UInt64, info: ClassInfo, row range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        // (Tested first: storing nil over nil still calls the runtime to release nothing.)
        if __realmOwner != nil { __realmOwner = nil }
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
    /// realm. Always inlined into the model's getter, with the typed read it calls (see
    /// `Persistable+RowReads.swift`).
    ///
    /// The usual read (a value column of the row the object last read, current and on the
    /// realm's thread, the column after the last one read) calls nothing: any other case goes to
    /// `_readOutOfLine`, as the getter's last step. The compiler then saves and restores no
    /// register on the usual path, where it saved five around every property read before,
    /// for the calls on the other paths.
    @inlinable @inline(__always)
    final func _read<V: _Persistable>(_: V.Type, slot: UInt16) -> V {
        // (`V.self` is a constant once specialized: no test in the reads of other types.)
        if V.self != AnyRealmValue.self, let column = PropertySlots.column(of: slot) {
            let value = __managedRealm.unsafelyUnwrapped._withUnsafeGuaranteedRef { realm -> V? in
                guard realm.isCurrentHere(rowStamp: __rowStamp) else { return nil }
                return V._fromCurrentRow(__row, of: self, column: column, inPlaceOnly: true, realm: realm)
            }
            if let value { return value }
        }
        return _readOutOfLine(V.self, slot: slot)
    }

    /// `_read`'s other paths: an `AnyRealmValue`; the typed read, where the row is current but
    /// the realm's confinement needs a closer look (`checkThread`), or the column takes a walk
    /// to find; the general read through a `RowValue` otherwise; a list, set, map or linking
    /// property through the realm. Inlinable, so specialized for the property's type in the
    /// model's module, but never inlined.
    @inlinable @inline(never)
    final func _readOutOfLine<V: _Persistable>(_: V.Type, slot: UInt16) -> V {
        let realm = __managedRealm.unsafelyUnwrapped
        if let column = PropertySlots.column(of: slot) {
            return realm._withUnsafeGuaranteedRef { realm in
                if V.self == AnyRealmValue.self { return _mixedValue(column: column, in: realm) as! V }
                if let row = _currentRow(in: realm),
                   let value = V._fromCurrentRow(row, of: self, column: column, inPlaceOnly: false, realm: realm) {
                    return value
                }
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

    /// The `AnyRealmValue` in column `column`, read through `realm`, which is this object's: a
    /// list or dictionary it holds is live, read and changed in place.
    @usableFromInline
    final func _mixedValue(column: Int, in realm: Realm) -> AnyRealmValue {
        let location = NestedCollectionLocation(root: .property(owner: ManagedObjectState(self), column: column), path: [])
        return AnyRealmValue(mixed: MixedValue(stored: _storedValue(column: column, in: realm).value), realm: realm, at: location)
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
    /// typed reads of `_Persistable._fromCurrentRow` decode. (`_read`'s usual path checks the
    /// same in one test, `Realm.isCurrentHere`.)
    @inlinable @inline(__always)
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
