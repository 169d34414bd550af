import AsyncRealm
import Foundation

/// How values read from a file are written: for people (`query`), as JSON and as CSV fields.
///
/// A link is written as the linked object's primary key, or, for a class without one, as its
/// key in the file (`{"$key": 17}` in JSON, `Dog#17` in text), which names it as long as it lives.
/// An embedded object, which has no identity of its own, is written whole where it is held:
/// `Street(name: Main, number: 1)`, or a JSON object. A map is `[key: value]` in text and a JSON
/// object, keys in the map's order.
/// Dates are ISO 8601 in UTC with milliseconds; data is base64; decimals, object ids and UUIDs
/// are strings; a float that is not a number or infinite is the JSON string "NaN", "Infinity"
/// or "-Infinity".
struct ValueText {
    let schema: Schema
    private let dates = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    init(schema: Schema) {
        self.schema = schema
    }

    // MARK: Text

    /// `value` for a person to read: strings as they are, lists as `[a, b]`, nil as `nil`.
    func text(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let list as [Any?]: return "[" + list.map(text).joined(separator: ", ") + "]"
        case let map as [String: Any?]: return "[" + Self.sorted(map).map { "\($0.key): \(text($0.value))" }.joined(separator: ", ") + "]"
        case let object as DynamicObject: return link(object, text: true)
        default: return scalarText(value!)
        }
    }

    private func scalarText(_ value: Any) -> String {
        switch value {
        case let date as Date: return dates.format(date)
        case let data as Data: return data.base64EncodedString()
        case let number as Double: return "\(number)"
        case let number as Float: return "\(number)"
        default: return "\(value)"
        }
    }

    private func link(_ object: DynamicObject, text: Bool) -> String {
        let className = object.objectSchema.className
        if object.objectSchema.isEmbedded { return embedded(object, text: text) }
        if let primaryKey = schema[className]?.primaryKeyProperty {
            let key = object.plainValue(forKey: primaryKey.name)
            return text ? "\(className)(\(self.text(key)))" : json(key)
        }
        let key = object.storageKey.map(String.init) ?? "?"
        return text ? "\(className)#\(key)" : "{\"$key\":\(key)}"
    }

    /// An embedded object's stored properties, written where it is held.
    private func embedded(_ object: DynamicObject, text: Bool) -> String {
        let names = object.objectSchema.properties.filter { $0.type != .linkingObjects }.map(\.name)
        if text {
            return object.objectSchema.className + "(" + names.map { "\($0): \(self.text(object.plainValue(forKey: $0)))" }.joined(separator: ", ") + ")"
        }
        return "{" + names.map { Self.jsonString($0) + ":" + json(object.plainValue(forKey: $0)) }.joined(separator: ",") + "}"
    }

    /// A map's entries in the map's order: by the keys' UTF-8 bytes.
    private static func sorted(_ map: [String: Any?]) -> [(key: String, value: Any?)] {
        map.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) }
    }

    // MARK: JSON

    /// `value` as JSON text.
    func json(_ value: Any?) -> String {
        switch value {
        case nil: return "null"
        case let list as [Any?]: return "[" + list.map(json).joined(separator: ",") + "]"
        case let map as [String: Any?]: return "{" + Self.sorted(map).map { Self.jsonString($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        case let object as DynamicObject: return link(object, text: false)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return Self.json(number)
        case let number as Float: return Self.json(Double(number), text: "\(number)")
        case let string as String: return Self.jsonString(string)
        default: return Self.jsonString(scalarText(value!))
        }
    }

    private static func json(_ number: Double, text: String? = nil) -> String {
        if number.isNaN { return "\"NaN\"" }
        if number.isInfinite { return number > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return text ?? "\(number)"
    }

    /// `string` quoted and escaped as JSON requires.
    static func jsonString(_ string: String) -> String {
        var quoted = "\""
        quoted.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20:
                quoted += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    // MARK: CSV

    /// `value` as one CSV field (RFC 4180): nil is empty, a list is its JSON array, and a
    /// field holding a comma, a quote or a line break is quoted.
    func csv(_ value: Any?) -> String {
        let field: String
        switch value {
        case nil: return ""
        case let list as [Any?]: field = json(list)
        case let map as [String: Any?]: field = json(map)
        case let object as DynamicObject: field = link(object, text: false)
        default: field = scalarText(value!)
        }
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
