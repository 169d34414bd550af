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
