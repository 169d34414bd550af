import StorageEngine

/// Encoded rows shared by the accessors of the objects read together (a batch of a `Results`
/// iteration, or one object). Each accessor keeps a pointer to its row's bytes here and a
/// reference that keeps the buffer alive; a property read decodes one column from those bytes.
///
/// Rows are kept as the engine stores them, not decoded: copying a row's bytes costs less than
/// decoding every column into values no one may read, and freeing a batch frees one block of
/// bytes instead of a value per column. The buffer is filled first and read after: rows are
/// appended, which may move the block, and only then are their pointers handed out.
final class RowBuffer {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    /// The table the rows come from, named when a row turns out to be damaged.
    let tableName: String
    /// The realm the rows were read through. The buffer keeps it alive, so that an accessor
    /// holding a row of this buffer need not count a reference to the realm itself
    /// (`ManagedObjectState.realm`).
    let realm: Realm

    init(realm: Realm, tableName: String, capacity: Int = 64) {
        self.realm = realm
        self.tableName = tableName
        // Room for a few rows at least: a query's first match would otherwise grow it at once.
        self.capacity = Swift.max(capacity, 256)
        storage = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { storage.deallocate() }

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

    /// Copies `bytes` (rows, one or several back to back) after the rows already held.
    func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let length = bytes.count
        if count + length > capacity {
            let grown = Swift.max(capacity * 2, count + length)
            let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            moved.copyMemory(from: storage, byteCount: count)
            storage.deallocate()
            storage = moved
            capacity = grown
        }
        if let base = bytes.baseAddress { (storage + count).copyMemory(from: base, byteCount: length) }
        count += length
        return (count - length)..<count
    }

    /// The bytes of the rows held.
    var byteCount: Int { count }


    /// Forgets every row, keeping the memory; only when no accessor points into it.
    func removeAll() {
        count = 0
    }

    /// The bytes at `range`, valid while this buffer lives and no row is appended.
    func bytes(at range: Range<Int>) -> UnsafeRawBufferPointer {
        precondition(range.upperBound <= count, "row range outside its buffer")
        return UnsafeRawBufferPointer(start: storage + range.lowerBound, count: range.count)
    }

    /// Column `column` of `row` (bytes of this buffer); null past the row's end (a column added
    /// later). `cursor` remembers where the last column read of this row was.
    @inline(__always)
    static func column(_ column: Int, of row: UnsafeRawBufferPointer, cursor: inout ColumnCursor, table: @autoclosure () -> String) -> Value {
        do {
            return try RowCodec.decodeColumn(column, of: row, cursor: &cursor)
        } catch {
            damaged(error, table: table())
        }
    }

    /// Every column of `row`.
    static func decode(_ row: UnsafeRawBufferPointer, table: String) -> [Value] {
        do {
            return try RowCodec.decode(row)
        } catch {
            damaged(error, table: table)
        }
    }

    private static func damaged(_ error: any Error, table: String) -> Never {
        preconditionFailure("a row of '\(table)' cannot be read: \(error); the file is damaged, restore it from a copy")
    }
}
