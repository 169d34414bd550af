import Foundation
import StorageEngine

/// How an `AnyRealmValue` is stored in its column (or as an element or a map's value).
///
/// The types a row value tells apart are stored as they are: nil, booleans, integers, floats,
/// doubles, strings, data, dates and UUIDs. The three a row value would confuse with another
/// carry a tag: an `ObjectId` (`.binary` otherwise, like data) is `["objectId", bytes]`, a
/// decimal (`.string` otherwise) is `["decimal128", text]`, and a link, which must name its
/// class, is `["object", className, key]`.
///
/// A list or a dictionary held in a mixed value (`AnyRealmValue.list`, `.dictionary`) is
/// stored in the same column, whole: `["list", [element, ...]]` and `["dictionary",
/// [[key, value], ...]]` (a map's stored form, keys in order), each element and value stored
/// as a mixed value again, to any depth.
enum MixedValue {
    case none
    /// A value stored as it is.
    case value(RowValue)
    case objectId([UInt8])
    case decimal(Decimal)
    case object(className: String, key: UInt64)
    /// A list held in the value: its elements' stored forms.
    case list([RowValue])
    /// A dictionary held in the value: its entries' stored forms, in key order.
    case dictionary([MapStore.Entry])
    /// A tagged value this version does not know.
    case malformed

    static let objectIdTag = "objectId"
    static let decimalTag = "decimal128"
    static let objectTag = "object"
    static let listTag = "list"
    static let dictionaryTag = "dictionary"

    init(stored: RowValue) {
        switch stored {
        case .null: self = .none
        case .list(let fields):
            switch (fields.first, fields.count) {
            case (.string(Self.objectIdTag)?, 2):
                guard case .binary(let bytes) = fields[1], bytes.count == 12 else { self = .malformed; return }
                self = .objectId(bytes)
            case (.string(Self.decimalTag)?, 2):
                guard case .string(let text) = fields[1], let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    self = .malformed
                    return
                }
                self = .decimal(decimal)
            case (.string(Self.objectTag)?, 3):
                guard case .string(let className) = fields[1], case .objectKey(let key) = fields[2] else { self = .malformed; return }
                self = .object(className: className, key: key)
            case (.string(Self.listTag)?, 2):
                guard case .list(let elements) = fields[1] else { self = .malformed; return }
                self = .list(elements)
            case (.string(Self.dictionaryTag)?, 2):
                guard let entries = MapStore.decode(fields[1]) else { self = .malformed; return }
                self = .dictionary(entries)
            default: self = .malformed
            }
        case .objectKey: self = .malformed
        default: self = .value(stored)
        }
    }

    /// The stored form.
    var stored: RowValue {
        switch self {
        case .none, .malformed: .null
        case .value(let value): value
        case .objectId(let bytes): .list([.string(Self.objectIdTag), .binary(bytes)])
        case .decimal(let decimal): .list([.string(Self.decimalTag), .string(NSDecimalNumber(decimal: decimal).description(withLocale: Locale(identifier: "en_US_POSIX")))])
        case .object(let className, let key): .list([.string(Self.objectTag), .string(className), .objectKey(key)])
        case .list(let elements): .list([.string(Self.listTag), .list(elements)])
        case .dictionary(let entries): .list([.string(Self.dictionaryTag), MapStore.encode(entries)])
        }
    }
}
