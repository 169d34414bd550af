import Foundation
import StorageEngine

// The lists and dictionaries an `AnyRealmValue` holds: how they are stored (see `MixedValue`),
// read back (live when they belong to a managed object, see `NestedCollectionLocation`), and
// compared.

extension AnyRealmValue {
    /// How deep lists and dictionaries may nest in one value. Deeper is a programmer error: a
    /// list that holds itself would nest forever.
    static let maximumNesting = 100

    /// The value stored as `mixed`. A list or dictionary it holds is live at `location` (read
    /// and changed there) when it has one, and an unmanaged copy otherwise.
    init(mixed: MixedValue, realm: Realm, at location: NestedCollectionLocation?) {
        switch mixed {
        case .none: self = .none
        case .value(let value):
            switch value {
            case .bool(let flag): self = .bool(flag)
            case .int(let number): self = .int(Int(number))
            case .float(let number): self = .float(number)
            case .double(let number): self = .double(number)
            case .string(let text): self = .string(text)
            case .binary(let bytes): self = .data(Data(bytes))
            case .timestamp: self = .date(Date._fromStorage(_StorageValue(value), realm: realm))
            case .uuid: self = .uuid(UUID._fromStorage(_StorageValue(value), realm: realm))
            default: storageMismatch(_StorageValue(value), Self.self)
            }
        case .objectId(let bytes): self = .objectId(ObjectId(bytes: bytes))
        case .decimal(let decimal): self = .decimal128(decimal)
        case .object(let className, let key):
            self = realm.mixedLinkTarget(className: className, key: key).map(AnyRealmValue.object) ?? .none
        case .list(let elements):
            if let location {
                self = .list(List(nested: location))
            } else {
                self = .fromArray(elements.map { AnyRealmValue(mixed: MixedValue(stored: $0), realm: realm, at: nil) })
            }
        case .dictionary(let entries):
            if let location {
                self = .dictionary(Map(nested: location))
            } else {
                let map = Map<String, AnyRealmValue>()
                for entry in entries { map[entry.key] = AnyRealmValue(mixed: MixedValue(stored: entry.value), realm: realm, at: nil) }
                self = .dictionary(map)
            }
        case .malformed: storageMismatch(_StorageValue(mixed.stored), Self.self)
        }
    }

    /// The stored form, `depth` lists and dictionaries down from the stored value; linked
    /// unmanaged objects are added to `realm`.
    func storedForm(realm: Realm, depth: Int) -> RowValue {
        switch self {
        case .none: return .null
        case .int(let value): return .int(Int64(value))
        case .bool(let value): return .bool(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .data(let value): return .binary(Array(value))
        case .date(let value): return value._toStorage(realm: realm).value
        case .uuid(let value): return value._toStorage(realm: realm).value
        case .objectId(let value): return MixedValue.objectId(value.bytes).stored
        case .decimal128(let value): return MixedValue.decimal(value).stored
        case .object(let object):
            guard case .objectKey(let key) = object._toStorage(realm: realm).value else { return .null }
            let className = object.managed?.info.schema.className ?? type(of: object).className()
            return MixedValue.object(className: className, key: key).stored
        case .list(let list):
            Self.checkNesting(depth)
            return MixedValue.list(list.map { $0.storedForm(realm: realm, depth: depth + 1) }).stored
        case .dictionary(let map):
            Self.checkNesting(depth)
            let entries = map.map { (key: $0.key, value: $0.value.storedForm(realm: realm, depth: depth + 1)) }
            return MixedValue.dictionary(MapStore.normalized(entries)).stored
        }
    }

    private static func checkNesting(_ depth: Int) {
        require(depth < maximumNesting, "lists and dictionaries in an AnyRealmValue nest more than \(maximumNesting) deep; does a list or dictionary hold itself?")
    }

    /// A dictionary of values `_fromAny` takes (`[String: AnyRealmValue]`, or nested Swift
    /// dictionaries and arrays) as a new unmanaged dictionary; nil if a value is none of those.
    static func fromAnyDictionary(_ dictionary: [String: Any?]) -> AnyRealmValue? {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary {
            guard let mixed = _fromAny(value) else { return nil }
            map[key] = mixed
        }
        return .dictionary(map)
    }

    /// An array of values `_fromAny` takes as a new unmanaged list; nil if an element is not one.
    static func fromAnyArray(_ array: [Any?]) -> AnyRealmValue? {
        var elements: [AnyRealmValue] = []
        for value in array {
            guard let mixed = _fromAny(value) else { return nil }
            elements.append(mixed)
        }
        return .fromArray(elements)
    }
}

extension AnyRealmValue {
    /// Whether the two hold the same case and value. Lists and dictionaries compare as the
    /// collections do: unmanaged ones by their elements (or entries), managed ones when they
    /// are the same stored collection, as in RealmSwift.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }

    /// Hashes the case and the value; a list or dictionary by its case alone, as in
    /// RealmSwift (their contents can change while they are in a set).
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .float(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        case .objectId(let value): hasher.combine(value)
        case .decimal128(let value): hasher.combine(value)
        case .uuid(let value): hasher.combine(value)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }
}
