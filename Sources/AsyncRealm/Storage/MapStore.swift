import StorageEngine

/// How `Map` properties are stored: in a table of entries of their own, named and keyed as a
/// list's elements are (`ListStore`: `owner << 32 | position`, the count in the owner's row),
/// with the entry's value in column 0, its key in column 1, and both together in column 2
/// (`lookupKey`). A map of objects has the lists' backlink index on column 0, so
/// `LinkingObjects`, deletes and queries find the maps holding an object as they find the lists;
/// a map of indexable values has an index on column 0 (`ANY map == x`) and one on column 2,
/// which answers `map['key'] == x` with one lookup.
///
/// A map's entries are kept in the order of their keys' UTF-8 bytes: `keys` come out sorted,
/// and finding a key is a binary search over positions, O(log² n). Adding or removing a key
/// moves the entries after it, O(n log n) at worst.
enum MapStore {
    typealias Entry = (key: String, value: RowValue)

    /// The column holding an entry's key and value together (`lookupKey`).
    static let lookupColumn = 2

    /// An entry's key and value as one value, equal for two entries exactly when their keys
    /// have the same bytes and their values are the same: the key's UTF-8 bytes, a zero byte,
    /// then a tag byte and the value's bytes.
    static func lookupKey(_ key: String, _ value: RowValue) -> RowValue {
        var bytes = Array(key.utf8)
        bytes.append(0)
        appendEncoded(value, to: &bytes)
        return .binary(bytes)
    }

    private static func appendEncoded(_ value: RowValue, to bytes: inout [UInt8]) {
        func append<T: FixedWidthInteger>(_ number: T) {
            withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
        }
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes += [1, flag ? 1 : 0]
        case .int(let number): bytes.append(2); append(number)
        case .float(let number): bytes.append(3); append((number == 0 ? 0 : number).bitPattern)
        case .double(let number): bytes.append(4); append((number == 0 ? 0 : number).bitPattern)
        case .string(let text): bytes.append(5); bytes += text.utf8
        case .binary(let data): bytes.append(6); bytes += data
        case .timestamp(let seconds, let nanoseconds): bytes.append(7); append(seconds); append(nanoseconds)
        case .uuid(let bits): bytes.append(8); append(bits)
        case .objectKey(let key): bytes.append(9); append(key)
        case .list(let items):
            bytes.append(10)
            append(UInt32(items.count))
            for item in items { appendEncoded(item, to: &bytes) }
        }
    }

    /// Whether `a` sorts before `b`: by UTF-8 bytes, as the entries are kept.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func sameKey(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// A map's stored form in a row value: `.list` of `[.string(key), value]` pairs.
    static func encode(_ entries: [Entry]) -> RowValue {
        .list(entries.map { .list([.string($0.key), $0.value]) })
    }

    /// The entries of a map's stored form; nil if `value` is not one.
    static func decode(_ value: RowValue) -> [Entry]? {
        guard case .list(let pairs) = value else { return nil }
        var entries: [Entry] = []
        for pair in pairs {
            guard case .list(let fields) = pair, fields.count == 2, case .string(let key) = fields[0] else { return nil }
            entries.append((key, fields[1]))
        }
        return entries
    }

    /// `entries` sorted by key, the last value given for a key winning (as assigning each in
    /// turn would).
    static func normalized(_ entries: [Entry]) -> [Entry] {
        var byKey: [[UInt8]: Entry] = [:]
        for entry in entries { byKey[Array(entry.key.utf8)] = entry }
        return byKey.values.sorted { precedes($0.key, $1.key) }
    }

    // MARK: Reading

    /// Every entry of the map of `owner`, in key order.
    static func entries(in table: any TableReading, owner: UInt64, count: Int) throws -> [Entry] {
        guard count > 0 else { return [] }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        try table.scan(ListStore.key(owner: owner, position: 0)...ListStore.key(owner: owner, position: count - 1)) { _, row in
            entries.append(try entry(row.decoded(), in: table))
            return true
        }
        return entries
    }

    /// The entry at `position` of the map of `owner`.
    static func entry(at position: Int, in table: any TableReading, owner: UInt64) throws -> Entry {
        guard let row = try table.row(ListStore.key(owner: owner, position: position)) else {
            throw RealmError(code: .invalidDatabase, message: "entry \(position) of a map in '\(table.name)' is missing")
        }
        return try entry(row, in: table)
    }

    /// Where `key` is in the map of `owner`, or where it would go.
    static func search(_ key: String, in table: any TableReading, owner: UInt64, count: Int) throws -> (position: Int, found: Bool) {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            let current = try entry(at: middle, in: table, owner: owner).key
            if sameKey(current, key) { return (middle, true) }
            if precedes(current, key) { low = middle + 1 } else { high = middle }
        }
        return (low, false)
    }

    /// The value stored under `key` in the map of `owner`; nil if the map has no such key.
    static func value(for key: String, in table: any TableReading, owner: UInt64, count: Int) throws -> RowValue? {
        let (position, found) = try search(key, in: table, owner: owner, count: count)
        return found ? try entry(at: position, in: table, owner: owner).value : nil
    }

    // MARK: Writing

    /// Stores `value` under `key` in the map of `owner`, which has `count` entries; returns the
    /// new count.
    static func set(_ value: RowValue, for key: String, in table: TableWriter, owner: UInt64, count: Int) throws -> Int {
        let (position, found) = try search(key, in: table, owner: owner, count: count)
        if found {
            try write((key, value), at: position, in: table, owner: owner, isNew: false)
            return count
        }
        try checkLimit(owner: owner, count: count + 1, table: table)
        for index in stride(from: count - 1, through: position, by: -1) {
            try write(try entry(at: index, in: table, owner: owner), at: index + 1, in: table, owner: owner, isNew: index == count - 1)
        }
        try write((key, value), at: position, in: table, owner: owner, isNew: position == count)
        return count + 1
    }

    /// Removes `key` from the map of `owner`; returns the new count.
    static func remove(_ key: String, in table: TableWriter, owner: UInt64, count: Int) throws -> Int {
        let (position, found) = try search(key, in: table, owner: owner, count: count)
        guard found else { return count }
        for index in position..<(count - 1) {
            try write(try entry(at: index + 1, in: table, owner: owner), at: index, in: table, owner: owner, isNew: false)
        }
        try table.delete(ListStore.key(owner: owner, position: count - 1))
        return count - 1
    }

    /// Replaces the map of `owner` by `entries` (normalized: sorted, one per key), rewriting
    /// only the positions that change.
    static func replace(with entries: [Entry], in table: TableWriter, owner: UInt64, count: Int) throws {
        try checkLimit(owner: owner, count: entries.count, table: table)
        for (position, entry) in entries.enumerated() {
            try write(entry, at: position, in: table, owner: owner, isNew: position >= count)
        }
        for position in entries.count..<max(count, entries.count) {
            try table.delete(ListStore.key(owner: owner, position: position))
        }
    }

    /// Sets the value of the entry stored under row key `entryKey` (a deleted object's entry
    /// becoming nil), keeping its key.
    static func setValue(_ value: RowValue, ofEntry entryKey: UInt64, in table: TableWriter) throws {
        guard case .string(let key)? = try table.value(entryKey, column: 1) else { return }
        _ = try table.update(entryKey, to: [value, .string(key), lookupKey(key, value)])
    }

    private static func write(_ entry: Entry, at position: Int, in table: TableWriter, owner: UInt64, isNew: Bool) throws {
        let row: [RowValue] = [entry.value, .string(entry.key), lookupKey(entry.key, entry.value)]
        let key = ListStore.key(owner: owner, position: position)
        if isNew { try table.insert(row, forKey: key) } else { _ = try table.update(key, to: row) }
    }

    private static func entry(_ row: [RowValue], in table: any TableReading) throws -> Entry {
        guard row.count >= 2, case .string(let key) = row[1] else {
            throw RealmError(code: .invalidDatabase, message: "an entry of a map in '\(table.name)' is malformed")
        }
        return (key, row[0])
    }

    private static func checkLimit(owner: UInt64, count: Int, table: TableWriter) throws {
        guard owner < ListStore.limit, UInt64(count) < ListStore.limit else {
            throw RealmError(code: .limitExceeded, message: "'\(table.name)' cannot hold a map of \(count) entries for object key \(owner): maps are limited to 2^32 entries and objects holding maps to keys below 2^32")
        }
    }
}
