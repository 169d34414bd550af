import StorageEngine

/// What a list, set or map property's stored value holds, made ready to store: a list's
/// elements, a set's elements each kept once (`SetStore`), or a map's entries sorted with one
/// per key (`MapStore`). A value that holds no collection (nil, `NSNull()`) is an empty one.
enum CollectionContents {
    case elements([RowValue])
    case entries([MapStore.Entry])

    init(_ stored: RowValue, of property: Property) {
        if property.isMap {
            self = .entries(MapStore.normalized(MapStore.decode(stored) ?? []))
            return
        }
        var elements: [RowValue] = []
        if case .list(let given) = stored { elements = given }
        self = .elements(property.isSet ? SetStore.distinct(elements) : elements)
    }

    /// The number of elements or entries, which the owner's row stores.
    var count: Int {
        switch self {
        case .elements(let elements): elements.count
        case .entries(let entries): entries.count
        }
    }

    /// Writes the contents as the collection of `owner` in `table`, which holds `count`
    /// elements or entries for it now.
    func store(in table: TableWriter, owner: UInt64, replacing count: Int) throws {
        switch self {
        case .elements(let elements): try ListStore.replace(with: elements, in: table, owner: owner, count: count)
        case .entries(let entries): try MapStore.replace(with: entries, in: table, owner: owner, count: count)
        }
    }
}
