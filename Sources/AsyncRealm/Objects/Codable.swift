import Foundation

// `Codable` for models, as in RealmSwift: a model class that declares `Codable` (or `Decodable`,
// `Encodable`) gets Swift's synthesised conformance, which decodes and encodes each
// `@Persisted` property through `Persisted`'s own conformance below, and lists, sets, maps,
// `ObjectId` and `AnyRealmValue` through theirs.
//
//     final class Dog: Object, Codable {
//         @Persisted var name: String
//         @Persisted var age: Int
//     }
//     let dogs = try JSONDecoder().decode([Dog].self, from: json)
//     try realm.write { realm.add(dogs) }
//
// A key missing from the input leaves its property at its type's default, as RealmSwift does,
// and a `Decimal` is read from a string as well as from a number, as RealmSwift's `Decimal128`.
// Only unmanaged objects are encoded by the synthesised `encode(to:)`: a managed object's
// properties live in its realm, which a property's own `encode(to:)` cannot reach. Encoding one
// throws, saying so, as in RealmSwift.

extension Persisted: Decodable where Value: Decodable {
    /// A property decoded from the value at the decoder, as the synthesised `init(from:)` of
    /// a model decodes each `@Persisted` property.
    ///
    /// - Parameter decoder: The decoder positioned at the property's value.
    /// - Throws: `DecodingError` if the value is not of the property's type.
    public init(from decoder: any Decoder) throws {
        // Through a container, not `Value(from:)`: the decoder applies its strategies for
        // `Data`, `Date` and `Decimal` (base64, seconds...) only to values decoded through one.
        let container = try decoder.singleValueContainer()
        let value = try decimalFromString(Value.self, or: { try container.decode(Value.self) }, string: { try? container.decode(String.self) })
        self.init(value: value, options: PersistedOptions(hasInitialValue: true))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the property's value, for the synthesised `encode(to:)` of an unmanaged model.
    ///
    /// - Parameter encoder: The encoder to write the value to.
    /// - Throws: `EncodingError.invalidValue` for a property of a managed object.
    public func encode(to encoder: any Encoder) throws {
        guard managedSlot == 0 else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "Only unmanaged objects can be encoded with Swift's synthesised Codable conformance: a managed object's properties are in its realm. Define encode(to:) on the model, or encode an unmanaged copy (Object(value:))."))
        }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// The value `decode` gives; for a `Decimal` (optional or not) that it cannot decode, the decimal
/// the input's string spells (`"1.5e2"`), as RealmSwift's `Decimal128` decodes one from a number
/// or a string. (Foundation's `Decimal` reads only a number.)
private func decimalFromString<Value>(_ type: Value.Type, or decode: () throws -> Value, string: () -> String?) throws -> Value {
    do {
        return try decode()
    } catch {
        guard Value.self == Decimal.self || Value.self == Decimal?.self,
              let text = string(), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
              let value = (Value.self == Decimal.self ? decimal as Any : Optional(decimal) as Any) as? Value else { throw error }
        return value
    }
}

extension KeyedDecodingContainer {
    /// A `@Persisted` property whose key is missing from the input starts at its type's default
    /// (zero, empty, nil), as in RealmSwift, instead of failing the whole decoding.
    ///
    /// - Parameters:
    ///   - type: The property's wrapper type.
    ///   - key: The property's key.
    /// - Returns: The decoded property, or one at its default.
    /// - Throws: `DecodingError` if the value is there but not of the property's type.
    public func decode<Value: Decodable>(_ type: Persisted<Value>.Type, forKey key: Key) throws -> Persisted<Value> {
        try decodeIfPresent(type, forKey: key) ?? Persisted<Value>()
    }
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the elements of the array at the decoder.
    ///
    /// - Parameter decoder: The decoder positioned at an array.
    /// - Throws: `DecodingError` if it is not an array of the element type.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        append(objectsIn: try decodeArray(of: Element.self, from: decoder))
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    ///
    /// - Parameter encoder: The encoder to write the array to.
    /// - Throws: What encoding an element throws.
    public func encode(to encoder: any Encoder) throws {
        try encodeArray(self, to: encoder)
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the elements of the array at the decoder.
    ///
    /// - Parameter decoder: The decoder positioned at an array.
    /// - Throws: `DecodingError` if it is not an array of the element type.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        insert(objectsIn: try decodeArray(of: Element.self, from: decoder))
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    ///
    /// - Parameter encoder: The encoder to write the array to.
    /// - Throws: What encoding an element throws.
    public func encode(to encoder: any Encoder) throws {
        try encodeArray(self, to: encoder)
    }
}

/// The elements of the array at `decoder`, for a list or a set.
private func decodeArray<Element: Decodable>(of type: Element.Type, from decoder: any Decoder) throws -> [Element] {
    var container = try decoder.unkeyedContainer()
    var elements: [Element] = []
    while !container.isAtEnd {
        elements.append(try decimalFromString(Element.self, or: { try container.decode(Element.self) }, string: { try? container.decode(String.self) }))
    }
    return elements
}

/// Encodes `elements` as an array, for a list or a set.
private func encodeArray<S: Sequence>(_ elements: S, to encoder: any Encoder) throws where S.Element: Encodable {
    var container = encoder.unkeyedContainer()
    for element in elements { try container.encode(element) }
}

/// A map's key as a coding key.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    /// An unmanaged map of the entries of the dictionary at the decoder.
    ///
    /// - Parameter decoder: The decoder positioned at a dictionary with string keys.
    /// - Throws: `DecodingError` if it is not a dictionary of the value type.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            updateValue(try container.decode(Value.self, forKey: key), forKey: Key(_mapKeyString: key.stringValue))
        }
    }
}

extension Map: Encodable where Value: Encodable {
    /// Encodes the entries as a dictionary.
    ///
    /// - Parameter encoder: The encoder to write the dictionary to.
    /// - Throws: What encoding a value throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in asKeyValueSequence() {
            try container.encode(value, forKey: MapCodingKey(stringValue: key._mapKeyString))
        }
    }
}

extension ObjectId: Codable {
    /// The id from its 24 hexadecimal digits.
    ///
    /// - Parameter decoder: The decoder positioned at a string.
    /// - Throws: `DecodingError` if it is not a string of 24 hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not an ObjectId: it needs 24 hexadecimal digits")
        }
    }

    /// Encodes the id as its 24 hexadecimal digits.
    ///
    /// - Parameter encoder: The encoder to write the string to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension AnyRealmValue: Codable {
    /// A mixed value from the value at the decoder: null, then the first of `Bool`, `Int`,
    /// `Double` and `String` that decodes it. (Data, dates and ids come as the strings or
    /// numbers their encoders make, so they decode as those.)
    ///
    /// - Parameter decoder: The decoder positioned at a single value.
    /// - Throws: `DecodingError` if the value is none of those.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let elements = try? container.decode([AnyRealmValue].self) {
            self = .fromArray(elements)
        } else if let entries = try? container.decode([String: AnyRealmValue].self) {
            self = .fromDictionary(entries)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the value the mixed value holds; an object only if its class is `Encodable`.
    ///
    /// - Parameter encoder: The encoder to write the value to.
    /// - Throws: `EncodingError.invalidValue` for an object whose class is not `Encodable`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encodeNil()
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .objectId(let value): try container.encode(value)
        case .decimal128(let value): try container.encode(value)
        case .uuid(let value): try container.encode(value)
        case .list(let list): try container.encode(Array(list))
        case .dictionary(let map): try container.encode(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value) }))
        case .object(let object):
            guard let encodable = object as? any Encodable else {
                throw EncodingError.invalidValue(object, EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "an AnyRealmValue holding a '\(type(of: object).className())' is encoded only if that class is Encodable"))
            }
            try container.encode(encodable)
        }
    }
}
