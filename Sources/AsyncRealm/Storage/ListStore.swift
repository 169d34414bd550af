import StorageEngine

/// How `List` properties are stored: each list property has a table of its own, one row per
/// element, so that appending to a list of a million elements writes one row, O(log n), instead
/// of rewriting the list.
///
/// - Table `list_<Class>.<property>` holds the elements of every list of that property. An
///   element's row key is `owner << 32 | position` (owner: the row key of the object holding the
///   list), so one list is one contiguous key range, read in order by a range scan, and element
///   `i` is one lookup. Column 0 is the element's value.
/// - The owner's row holds the list's length in the property's column (`.int`), so `count` reads
///   no element and every change to a list is a change to its owner's row too (which is what a
///   change notification on the owner needs to see).
/// - A list of objects has a non-unique index on column 0: the backlink index, giving the
///   objects that list a given object (`LinkingObjects`) and the elements to remove when that
///   object is deleted, without a scan.
///
/// Appending and reading are O(log n); inserting or removing at position `i` moves the
/// elements after it, O((n - i) log n).
enum ListStore {
    /// The largest owner key and length a list can have: each takes 32 bits of a row key.
    static let limit: UInt64 = 1 << 32

    /// The element table of `property` of `className`, named by the property's column name
    /// (its name in the file, which `Object.propertiesMapping()` can set apart from the model's).
    static func tableName(forClass className: String, property: Property) -> String {
        tableName(forClass: className, columnName: property.columnName)
    }

    static func tableName(forClass className: String, columnName: String) -> String {
        "list_" + className + "." + columnName
    }

    static func key(owner: UInt64, position: Int) -> UInt64 {
        owner << 32 | UInt64(position)
    }

    static func owner(ofKey key: UInt64) -> UInt64 { key >> 32 }

    static func position(ofKey key: UInt64) -> Int { Int(key & (limit - 1)) }

    /// The length of a list, from its owner's column.
    static func count(_ stored: RowValue) -> Int {
        if case .int(let count) = stored { return Int(count) }
        return 0
    }

    // MARK: Reading

    static func element(in table: any TableReading, owner: UInt64, position: Int) throws -> RowValue {
        guard let value = try table.value(key(owner: owner, position: position), column: 0) else {
            throw RealmError(code: .invalidDatabase, message: "element \(position) of a list in '\(table.name)' is missing")
        }
        return value
    }

    /// Every element of the list of `owner`, in order.
    static func elements(in table: any TableReading, owner: UInt64, count: Int) throws -> [RowValue] {
        guard count > 0 else { return [] }
        var elements: [RowValue] = []
        elements.reserveCapacity(count)
        try table.scan(key(owner: owner, position: 0)...key(owner: owner, position: count - 1)) { _, row in
            elements.append(try row.column(0))
            return true
        }
        return elements
    }

    // MARK: Writing

    /// Appends `elements` to the list of `owner`, which holds `count` elements.
    static func append(_ elements: [RowValue], to table: TableWriter, owner: UInt64, count: Int) throws {
        try checkLimits(owner: owner, count: count + elements.count, table: table)
        for (offset, element) in elements.enumerated() {
            try table.insert([element], forKey: key(owner: owner, position: count + offset))
        }
    }

    static func set(_ element: RowValue, at position: Int, in table: TableWriter, owner: UInt64) throws {
        try table.set(key(owner: owner, position: position), column: 0, to: element)
    }

    /// Inserts `element` at `position`, moving the elements from there one place up.
    static func insert(_ element: RowValue, at position: Int, in table: TableWriter, owner: UInt64, count: Int) throws {
        try checkLimits(owner: owner, count: count + 1, table: table)
        guard position < count else {
            try table.insert([element], forKey: key(owner: owner, position: position))
            return
        }
        let last = try self.element(in: table, owner: owner, position: count - 1)
        try table.insert([last], forKey: key(owner: owner, position: count))
        for index in stride(from: count - 1, to: position, by: -1) {
            try set(try self.element(in: table, owner: owner, position: index - 1), at: index, in: table, owner: owner)
        }
        try set(element, at: position, in: table, owner: owner)
    }

    /// Removes the element at `position`, moving the elements after it one place down.
    static func remove(at position: Int, in table: TableWriter, owner: UInt64, count: Int) throws {
        for index in position..<(count - 1) {
            try set(try element(in: table, owner: owner, position: index + 1), at: index, in: table, owner: owner)
        }
        try table.delete(key(owner: owner, position: count - 1))
    }

    /// Removes every element of the list of `owner`.
    static func removeAll(in table: TableWriter, owner: UInt64, count: Int) throws {
        for position in 0..<count { try table.delete(key(owner: owner, position: position)) }
    }

    /// Replaces the list of `owner` with `elements`, rewriting only the positions that change.
    static func replace(with elements: [RowValue], in table: TableWriter, owner: UInt64, count: Int) throws {
        try checkLimits(owner: owner, count: elements.count, table: table)
        for (position, element) in elements.prefix(count).enumerated() {
            try set(element, at: position, in: table, owner: owner)
        }
        if elements.count > count {
            try append(Array(elements[count...]), to: table, owner: owner, count: count)
        } else {
            for position in elements.count..<count { try table.delete(key(owner: owner, position: position)) }
        }
    }

    /// The (owner, position) of every element equal to `value`, through the backlink index.
    static func occurrences(of value: RowValue, in table: any TableReading) throws -> [(owner: UInt64, position: Int)] {
        try table.keys(where: 0, equals: value).map { (owner(ofKey: $0), position(ofKey: $0)) }
    }

    private static func checkLimits(owner: UInt64, count: Int, table: TableWriter) throws {
        guard owner < limit, UInt64(count) < limit else {
            throw RealmError(code: .limitExceeded, message: "'\(table.name)' cannot hold a list of \(count) elements for object key \(owner): lists are limited to 2^32 elements and objects holding lists to keys below 2^32")
        }
    }
}
