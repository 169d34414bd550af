import StorageEngine

/// Encoded rows shared by the accessors of the objects read together (a batch of a `Results`
/// iteration, or one object). Each accessor keeps a pointer to its row's bytes here and a
/// reference that keeps the buffer alive; a property read decodes one column from those bytes.
///
/// Rows are kept as the engine stores them, not decoded: copying a row's bytes costs less than
/// decoding every column into values no one may read, and freeing a batch frees one block of
/// bytes instead of a value per column. The buffer is filled first and read after: rows are
/// appended, which may move the block, and only then are their pointers handed out.
///
/// The first block of bytes is allocated with the buffer itself, after its fields (a
/// `ManagedBuffer`): a query that keeps one or two rows, or an object reading its row,
/// allocates once, not twice. A buffer that outgrows it moves its rows to a block of its own.
@usableFromInline
final class RowBuffer: ManagedBuffer<RowBuffer.Fields, UInt8> {
    @usableFromInline
    struct Fields {
        /// Where the rows are: the bytes allocated with the buffer, or a block it grew into.
        var storage: UnsafeMutableRawPointer
        var capacity: Int
        var count = 0
        /// The table the rows come from, named when a row turns out to be damaged.
        let tableName: String
        /// The realm the rows were read through, kept alive by `owner`, or by the accessors of
        /// a buffer without one.
        unowned(unsafe) let realm: Realm
        /// The leaf's bytes this buffer holds in place of its own (see `borrow(_:)`); empty
        /// when it holds rows it copied.
        var borrowed: [UInt8] = []
        /// The realm again, counted, so that an accessor holding a row of this buffer need not
        /// count a reference to the realm itself (`ManagedObjectState.realm`). Nil for a buffer
        /// the realm keeps to reuse (`ClassInfo.lookupBuffer(in:)`): one that the realm held
        /// and that held the realm would keep both alive for ever. Each accessor of such a
        /// buffer counts a reference to the realm instead (`Object.__realmOwner`).
        let owner: Realm?
    }

    /// A buffer for rows of `tableName` read through `realm`, with room for `capacity` bytes
    /// before it grows (a few rows at least: a query's first match would otherwise grow it at
    /// once). A buffer that does not `keepRealm` leaves keeping the realm alive to its
    /// accessors.
    static func make(realm: Realm, tableName: String, capacity: Int = 64, keepRealm: Bool = true) -> RowBuffer {
        let capacity = Swift.max(capacity, 256)
        let made = create(minimumCapacity: capacity) { made in
            // The tail's address is fixed for the object's life: a class instance never moves.
            Fields(storage: UnsafeMutableRawPointer(made.withUnsafeMutablePointerToElements { $0 }),
                   capacity: capacity, tableName: tableName, realm: realm, owner: keepRealm ? realm : nil)
        }
        return unsafeDowncast(made, to: RowBuffer.self)
    }

    deinit {
        // (The fields are destroyed by `ManagedBuffer`, a borrowed leaf's bytes with them; the
        // bytes are plain.)
        withUnsafeMutablePointers(Self.freeGrownBlock)
    }

    /// Frees the block the rows grew into, if they did (not the bytes allocated with the
    /// buffer, nor a borrowed leaf's).
    private static func freeGrownBlock(_ fields: UnsafeMutablePointer<Fields>, _ tail: UnsafeMutablePointer<UInt8>) {
        if fields.pointee.storage != UnsafeMutableRawPointer(tail) && fields.pointee.borrowed.isEmpty {
            fields.pointee.storage.deallocate()
        }
    }

    // The fields are read and written through the pointer: `header` is a class's stored
    // property, whose every access is checked for exclusivity at run time, on the path that
    // makes an iterated object the accessor of its next row.

    /// The table the rows come from.
    var tableName: String { withUnsafeMutablePointerToHeader { $0.pointee.tableName } }
    /// The realm the rows were read through.
    var realm: Realm { withUnsafeMutablePointerToHeader { $0.pointee.realm } }

    /// Copies `row` after the rows already held and returns its offset range; `bytes(at:)`
    /// turns it into a pointer once every row is in.
    func append(_ row: RowView) -> Range<Int> {
        append(row.bytes)
    }

    /// Copies the row at `range` of `other` after the rows already held.
    func append(_ range: Range<Int>, of other: RowBuffer) -> Range<Int> {
        assert(other !== self, "a buffer growing would move the bytes it copies")
        return append(other.bytes(at: range))
    }

    /// Holds `bytes`, a leaf's rows as the page cache keeps them, in place of the rows held,
    /// without copying them: a scan's accessors read their rows in the leaf. Only when no
    /// accessor points into this buffer.
    ///
    /// The array's storage is shared with the cache, not copied, and neither moves nor changes
    /// while this buffer holds it: nothing writes to an array through this buffer, and a
    /// change to the leaf elsewhere copies the storage first, since it is not uniquely held.
    func borrow(_ bytes: [UInt8]) {
        withUnsafeMutablePointers { fields, tail in
            Self.freeGrownBlock(fields, tail)
            fields.pointee.borrowed = bytes
            fields.pointee.storage = UnsafeMutableRawPointer(mutating: fields.pointee.borrowed.withUnsafeBytes { $0.baseAddress }
                ?? UnsafeRawPointer(tail))
            fields.pointee.count = bytes.count
            fields.pointee.capacity = bytes.count
        }
    }

    /// Copies `bytes` (rows, one or several back to back) after the rows already held.
    func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int> {
        require(withUnsafeMutablePointerToHeader { $0.pointee.borrowed.isEmpty }, "rows appended to a buffer holding a leaf's")
        let length = bytes.count
        return withUnsafeMutablePointers { fields, tail in
            let count = fields.pointee.count
            if count + length > fields.pointee.capacity {
                let grown = Swift.max(fields.pointee.capacity * 2, count + length)
                let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
                moved.copyMemory(from: fields.pointee.storage, byteCount: count)
                Self.freeGrownBlock(fields, tail)
                fields.pointee.storage = moved
                fields.pointee.capacity = grown
            }
            if let base = bytes.baseAddress { (fields.pointee.storage + count).copyMemory(from: base, byteCount: length) }
            fields.pointee.count = count + length
            return count..<(count + length)
        }
    }

    /// Appends row `key` of `table` and returns where it is; nil if the table has no such row.
    /// The row is copied once, from the page cache into this buffer's unused bytes, when it
    /// fits there; a longer one is read in place and appended, the buffer growing. A
    /// `directory` given learns the leaf the row was found in (see `LeafDirectory`).
    func appendRow(_ key: UInt64, of table: any TableReading, noting directory: LeafDirectory? = nil) throws -> Range<Int>? {
        let copied = try withUnsafeMutablePointerToHeader { fields -> Range<Int>?? in
            let count = fields.pointee.count
            let room = UnsafeMutableRawBufferPointer(start: fields.pointee.storage + count, count: fields.pointee.capacity - count)
            switch try table.copyRow(key, into: room, noting: directory) {
            case .copied(let length):
                require(length <= room.count, "a row copied past its buffer's room")
                fields.pointee.count = count + length
                return .some(count..<(count + length))
            case .absent: return .some(nil)
            case .tooLong: return nil
            }
        }
        if let copied { return copied }
        return try table.withRow(key) { append($0) }
    }

    /// The bytes of the rows held.
    var byteCount: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Forgets every row, keeping the memory (or letting go of a leaf's bytes); only when no
    /// accessor points into it.
    func removeAll() {
        withUnsafeMutablePointers { fields, tail in
            fields.pointee.count = 0
            guard !fields.pointee.borrowed.isEmpty else { return }
            fields.pointee.borrowed = []
            fields.pointee.storage = UnsafeMutableRawPointer(tail)
            fields.pointee.capacity = self.capacity
        }
    }

    /// The bytes at `range`, valid while this buffer lives and no row is appended.
    func bytes(at range: Range<Int>) -> UnsafeRawBufferPointer {
        withUnsafeMutablePointerToHeader { fields in
            require(range.upperBound <= fields.pointee.count, "row range outside its buffer")
            return UnsafeRawBufferPointer(start: fields.pointee.storage + range.lowerBound, count: range.count)
        }
    }

    /// Column `column` of `row` (bytes of this buffer); null past the row's end (a column added
    /// later). `cursor` remembers where the last column read of this row was.
    @inline(__always)
    static func column(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, table: @autoclosure () -> String) -> RowValue {
        do {
            return try RowCodec.decodeColumn(column, of: row, cursor: &cursor)
        } catch {
            stopOnDamage(error, table: table())
        }
    }

    /// Every column of `row`.
    static func decode(_ row: UnsafeRawBufferPointer, table: String) -> [RowValue] {
        do {
            return try RowCodec.decode(row)
        } catch {
            stopOnDamage(error, table: table)
        }
    }
}
