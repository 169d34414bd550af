import StorageEngine

/// How `MutableSet` properties are stored: as lists are (`ListStore`: a table of elements keyed
/// by owner and position, the length in the owner's row, a backlink index for objects), with no
/// two elements alike.
///
/// A set's positions carry no meaning. Removing an element moves the last one into its place,
/// so a removal writes two rows whatever the set's size; inserting appends. Whether a set holds
/// a value is one range scan of its elements, O(n): sets are read whole for their changes and
/// their queries anyway, and most are small.
enum SetStore {
    /// A stored element as a set compares it: strings by their UTF-8 bytes (two strings Swift
    /// calls equal by canonical equivalence are two elements, as queries and indexes tell them
    /// apart), every NaN one element, and 0.0 the same element as -0.0.
    struct Member: Hashable {
        let value: RowValue

        init(_ value: RowValue) {
            self.value = value
        }

        static func == (left: Member, right: Member) -> Bool {
            switch (left.value, right.value) {
            case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
            case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
            case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
            default: return left.value == right.value
            }
        }

        func hash(into hasher: inout Hasher) {
            switch value {
            case .string(let text): hasher.combine(0 as UInt8); for byte in text.utf8 { hasher.combine(byte) }
            case .double(let number) where number.isNaN: hasher.combine(1 as UInt8)
            case .float(let number) where number.isNaN: hasher.combine(2 as UInt8)
            default: hasher.combine(value)
            }
        }
    }

    /// `elements` with each value kept once, at its first occurrence.
    static func distinct(_ elements: [RowValue]) -> [RowValue] {
        var seen: Set<Member> = []
        return elements.filter { seen.insert(Member($0)).inserted }
    }

    /// The position of `element` in the set of `owner`, which holds `count` elements; nil if
    /// the set does not hold it.
    static func position(of element: RowValue, in table: any TableReading, owner: UInt64, count: Int) throws -> Int? {
        let wanted = Member(element)
        var found: Int?
        try scan(table, owner: owner, count: count) { position, value in
            if Member(value) == wanted { found = position }
            return found == nil
        }
        return found
    }

    /// The members of the set of `owner`.
    static func members(in table: any TableReading, owner: UInt64, count: Int) throws -> Set<Member> {
        Set(try ListStore.elements(in: table, owner: owner, count: count).map(Member.init))
    }

    /// Adds the values of `elements` the set of `owner` does not hold yet; returns its new
    /// length.
    static func insert(_ elements: [RowValue], into table: TableWriter, owner: UInt64, count: Int) throws -> Int {
        var held = try members(in: table, owner: owner, count: count)
        let added = elements.filter { held.insert(Member($0)).inserted }
        try ListStore.append(added, to: table, owner: owner, count: count)
        return count + added.count
    }

    /// Removes the values of `elements` the set of `owner` holds, each by moving the last
    /// element into its place; returns the set's new length.
    static func remove(_ elements: [RowValue], from table: TableWriter, owner: UInt64, count: Int) throws -> Int {
        var count = count
        for element in distinct(elements) {
            guard let position = try position(of: element, in: table, owner: owner, count: count) else { continue }
            try removeElement(at: position, from: table, owner: owner, count: count)
            count -= 1
        }
        return count
    }

    /// Removes the element at `position` of a set of `count` elements: the last moves there.
    static func removeElement(at position: Int, from table: TableWriter, owner: UInt64, count: Int) throws {
        if position < count - 1 {
            let last = try ListStore.element(in: table, owner: owner, position: count - 1)
            try ListStore.set(last, at: position, in: table, owner: owner)
        }
        try table.delete(ListStore.key(owner: owner, position: count - 1))
    }

    /// Keeps only the values of the set of `owner` that `kept` holds; returns its new length.
    static func keep(only kept: Set<Member>, in table: TableWriter, owner: UInt64, count: Int) throws -> Int {
        let elements = try ListStore.elements(in: table, owner: owner, count: count)
        let remaining = elements.filter { kept.contains(Member($0)) }
        guard remaining.count < elements.count else { return count }
        try ListStore.replace(with: remaining, in: table, owner: owner, count: count)
        return remaining.count
    }

    private static func scan(_ table: any TableReading, owner: UInt64, count: Int, _ body: (Int, RowValue) throws -> Bool) throws {
        guard count > 0 else { return }
        try table.scan(ListStore.key(owner: owner, position: 0)...ListStore.key(owner: owner, position: count - 1)) { key, row in
            try body(ListStore.position(ofKey: key), try row.column(0))
        }
    }
}
