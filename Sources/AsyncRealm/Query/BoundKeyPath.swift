import StorageEngine

/// A key path resolved against the schema: the hops from an object to the values it names.
struct BoundKeyPath: Sendable {
    enum Hop: Sendable {
        /// A to-one link in `column`, to objects of `target`.
        case link(column: Int, target: ObjectSchema)
        /// A list in `column`, stored in element table `table`; of objects of `target`, or of
        /// values when `target` is nil.
        case list(column: Int, table: String, target: ObjectSchema?)
        /// A map in `column`, stored in entry table `table`: the part of its entries `select`
        /// names; objects of `target` when it selects values that are objects.
        case map(column: Int, table: String, select: MapSelection, target: ObjectSchema?)
        /// The objects of `origin` linking here through `property` (a `LinkingObjects`).
        case backlinks(Property, origin: ObjectSchema)
        /// Every object linking here, through any class's link, list, set or map of this
        /// class (`@links.@count`): the `backlinks` hops of each, together.
        case allBacklinks([(property: Property, origin: ObjectSchema)])
        /// A value column (the last hop).
        case value(column: Int)
        /// An `AnyRealmValue` column and the subscripts that reach into the lists and
        /// dictionaries it holds (the last hop): `value['key'][0]`, `value[*]`.
        case mixed(column: Int, steps: [MixedStep])
    }

    /// A subscript into a list or dictionary held in a mixed value.
    enum MixedStep: Sendable, Equatable {
        /// A dictionary's value under a key: `['key']`.
        case key(String)
        /// A list's element at a position: `[2]`.
        case index(Int)
        /// A list's first or last element: `[FIRST]`, `[LAST]`.
        case first, last
        /// Every element of a list, or every value of a dictionary: `[*]`.
        case all

        /// The values `step` reaches in the stored mixed values `values`.
        static func apply(_ step: MixedStep, to values: [RowValue]) -> [RowValue] {
            values.flatMap { value -> [RowValue] in
                switch (MixedValue(stored: value), step) {
                case (.list(let elements), .index(let position)): elements.indices.contains(position) ? [elements[position]] : []
                case (.list(let elements), .first): elements.first.map { [$0] } ?? []
                case (.list(let elements), .last): elements.last.map { [$0] } ?? []
                case (.list(let elements), .all): elements
                case (.dictionary(let entries), .all): entries.map(\.value)
                case (.dictionary(let entries), .key(let key)): entries.first { MapStore.sameKey($0.key, key) }.map { [$0.value] } ?? []
                default: []
                }
            }
        }
    }

    /// What a path takes from a map.
    enum MapSelection: Sendable, Equatable {
        /// Every value (`map`, `map.@allValues`).
        case values
        /// Every key (`map.@allKeys`).
        case keys
        /// The value under one key, nil if there is none (`map['key']`).
        case key(String)
    }

    /// The fields, in one object: a template's comparison copies its path into every query
    /// made from it, and a path copied field by field counted a reference for each of its
    /// arrays and strings, then released them all with the query.
    private final class Fields: Sendable {
        let hops: [Hop]
        let property: Property
        let isCollection: Bool
        let text: String

        init(hops: [Hop], property: Property, isCollection: Bool, text: String) {
            self.hops = hops
            self.property = property
            self.isCollection = isCollection
            self.text = text
        }
    }

    private var fields: Fields

    init(hops: [Hop], property: Property, isCollection: Bool, text: String) {
        fields = Fields(hops: hops, property: property, isCollection: isCollection, text: text)
    }

    var hops: [Hop] {
        get { fields.hops }
        set { fields = Fields(hops: newValue, property: property, isCollection: isCollection, text: text) }
    }
    /// The property the path ends at (for a path ending at an object, the link or list).
    var property: Property {
        get { fields.property }
        set { fields = Fields(hops: hops, property: newValue, isCollection: isCollection, text: text) }
    }
    /// Whether the path can reach several values (it goes through a list or backlinks).
    var isCollection: Bool { fields.isCollection }
    /// The text of the path, for messages.
    var text: String {
        get { fields.text }
        set { fields = Fields(hops: hops, property: property, isCollection: isCollection, text: newValue) }
    }
    /// Whether the path takes a map's value under a key, which is nil where a map lacks the key.
    var selectsMapKey: Bool {
        hops.contains { hop in
            if case .map(_, _, .key, _) = hop { return true }
            return false
        }
    }
    /// Whether the path ends taking every element of a list or dictionary held in a mixed
    /// value (`value[*]`, and `value.@count`, which counts them).
    var takesEveryNestedElement: Bool {
        if case .mixed(_, let steps)? = hops.last { return steps.contains(.all) }
        return false
    }
    /// The class of the objects the path ends at, when it ends at objects.
    var objectClass: String? {
        if case .value = hops.last { return nil }
        return property.objectClassName
    }
}
