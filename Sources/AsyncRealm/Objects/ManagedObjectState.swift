import StorageEngine

/// What makes an object managed: its realm, its row, and the row as last read.
///
/// `@Persisted`'s accessor, inlined into each model, calls `read` and `write` here: the plain
/// value case runs specialised for the property's type, and everything that does not depend on
/// the type (finding the column, reading the row, checking the transaction) runs in the
/// non-generic functions it calls.
@usableFromInline
final class ManagedObjectState {
    /// The realm, unretained: kept alive by `rowBuffer` (every `RowBuffer` holds its realm) or,
    /// for a state made without a row, by `realmOwner`. An accessor made with its row (what
    /// iterating `Results` makes) then counts no reference to the realm, and a property read
    /// borrows it (`_withUnsafeGuaranteedRef`) instead of retaining it: two atomic operations
    /// fewer per object made, and none per property read.
    @usableFromInline let unretainedRealm: Unmanaged<Realm>
    @usableFromInline var realm: Realm { unretainedRealm.takeUnretainedValue() }
    /// The realm, counted, when the state was made without a row to keep it alive.
    private let realmOwner: Realm?
    let key: UInt64
    /// Unowned: the realm, which this state keeps alive, keeps every class info it made for as
    /// long as it lives; not counting the reference saves two atomic operations per accessor.
    unowned(unsafe) let info: ClassInfo
    /// The encoded row as read at `rowStamp` of the realm: `row` points into `rowBuffer`, which
    /// this state keeps alive. Read again when the realm has changed since. (Exclusivity is
    /// unchecked: only this realm's thread touches them, and never re-entrantly.)
    @exclusivity(unchecked) private(set) var rowBuffer: RowBuffer?
    @exclusivity(unchecked) private(set) var row = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var rowStamp = -1
    /// Where in `row` the last column read starts, so that reading the next one resumes there.
    @exclusivity(unchecked) var rowCursor = ColumnCursor()
    /// Set when the object was deleted through this accessor or its write was cancelled.
    var isInvalidated = false

    /// A state whose row is read when a property first needs it.
    init(realm: Realm, key: UInt64, info: ClassInfo) {
        unretainedRealm = .passUnretained(realm)
        realmOwner = realm
        self.key = key
        self.info = info
    }

    /// A state with its row, at `range` of `buffer`, as read at `stamp`; the buffer keeps the
    /// realm alive.
    init(key: UInt64, info: ClassInfo, row range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        unretainedRealm = .passUnretained(buffer.realm)
        realmOwner = nil
        self.key = key
        self.info = info
        setRow(range, of: buffer, stamp: stamp)
    }

    /// The property in slot `slot` (see `PropertySlots`), read from the realm.
    @inlinable
    func read<V: _Persistable>(_: V.Type, slot: UInt16) -> V {
        if let column = PropertySlots.column(of: slot) {
            return unretainedRealm._withUnsafeGuaranteedRef { realm in
                V._fromStorage(storedValue(column: column, in: realm), realm: realm)
            }
        }
        return realm.read(V.self, of: self, slot: slot)
    }

    /// Sets the property in slot `slot`; needs a write transaction.
    @inlinable
    func write<V: _Persistable>(_ value: V, slot: UInt16) {
        if let column = PropertySlots.column(of: slot) {
            checkWritable()
            setStoredValue(value._toStorage(realm: realm), column: column)
            return
        }
        realm.write(value, of: self, slot: slot)
    }

    /// Set on the state of a *recorder*, an instance used to learn which property a key path
    /// names (`Query`'s key paths): reading a property through it records the property's name
    /// in `recordedProperty` instead of reading a row.
    @exclusivity(unchecked) var isRecorder = false
    var recordedProperty = ""

    /// Remembers the row at `range` of `buffer` as read at `stamp`.
    func setRow(_ range: Range<Int>, of buffer: RowBuffer, stamp: Int) {
        // A buffer of another realm would not keep this state's realm alive.
        assert(buffer.realm === unretainedRealm.takeUnretainedValue(), "a row read through another realm")
        row = buffer.bytes(at: range)
        rowBuffer = buffer
        rowStamp = stamp
        rowCursor = ColumnCursor()
    }

    /// Whether `row` is the row as the realm reads it now.
    var hasCurrentRow: Bool { rowStamp == realm.stamp && rowBuffer != nil }

    /// Column `column` of the row, read through `realm`, which is this state's.
    @usableFromInline
    func storedValue(column: Int, in realm: Realm) -> _StorageValue {
        // The row is read through the pointer: no reference counting on the way to the bytes.
        if rowStamp == realm.stamp {
            realm.checkThread()
            return _StorageValue(RowBuffer.column(column, of: row, cursor: &rowCursor, table: info.schema.className))
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
