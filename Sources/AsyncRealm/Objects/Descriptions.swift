import Foundation

// What `print(object)` and `"\(results)"` show, in RealmSwift's form: an object as its class and
// its properties one per line, a collection as its elements numbered, each nested one tab
// deeper, five levels at most.
//
//     Dog {
//         name = Rex;
//         owner = Person {
//             id = 1;
//             ...
//         };
//     }

/// A value that describes itself as RealmSwift does, `depth` levels of links and collections
/// deep at most.
protocol RealmDescribable {
    func realmDescription(depth: Int) -> String
}

enum RealmDescription {
    /// How deep links and collections are followed, as in RealmSwift.
    static let maximumDepth = 5
    /// How many elements of a collection are shown, as in RealmSwift.
    static let maximumElements = 100
    static let depthExceeded = "<Maximum depth exceeded>"

    /// `value` as a property's or an element's value is shown: nil as `(null)` and a `Bool` as
    /// 0 or 1 (RealmSwift's Objective-C forms), `Data` as its first 24 bytes in hex and its
    /// length, objects and collections `depth` levels deep.
    static func describe(_ value: Any?, depth: Int) -> String {
        guard let value else { return "(null)" }
        switch value {
        // An element of a collection of optionals (`List<Int?>`) arrives wrapped once more.
        case let optional as any _OptionalValue: return describe(optional._wrapped.map { $0 as Any }, depth: depth)
        case let describable as any RealmDescribable: return describable.realmDescription(depth: depth)
        case let mixed as AnyRealmValue: return describe(mixed.describedValue, depth: depth)
        case let flag as Bool: return flag ? "1" : "0"
        case let data as Data: return describe(data)
        case let elements as [Any?]: return collection("List", of: "", address: nil, elements, count: elements.count, depth: depth)
        case let entries as [String: Any?]:
            return map("Map", address: nil, entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, depth: depth)
        default: return "\(value)"
        }
    }

    static func describe(_ data: Data) -> String {
        let shown = data.prefix(24)
        let words = stride(from: 0, to: shown.count, by: 4).map { start in
            shown.dropFirst(start).prefix(4).map { String(format: "%02x", $0) }.joined()
        }
        return "<\(words.joined(separator: " ")) — \(data.count) total bytes>"
    }

    /// A collection named `name` of `elementName`s: its first hundred elements, numbered.
    static func collection(
        _ name: String, of elementName: String, address: ObjectIdentifier?, _ elements: some Sequence<Any?>, count: Int, depth: Int
    ) -> String {
        guard depth > 0 else { return depthExceeded }
        let lines = elements.prefix(maximumElements).enumerated().map { index, element in
            "\t[\(index)] \(indented(describe(element, depth: depth - 1)))"
        }
        return heading(name, elementName, address) + body(lines, skipped: count - lines.count)
    }

    /// A map named `name`: its first hundred entries, by key.
    static func map(_ name: String, address: ObjectIdentifier?, _ entries: [(key: String, value: Any?)], depth: Int) -> String {
        guard depth > 0 else { return depthExceeded }
        let lines = entries.prefix(maximumElements).map { "\t[\($0.key)]: \(indented(describe($0.value, depth: depth - 1)))" }
        return heading(name, "", address) + body(lines, skipped: entries.count - lines.count)
    }

    private static func heading(_ name: String, _ elementName: String, _ address: ObjectIdentifier?) -> String {
        let type = elementName.isEmpty ? name : "\(name)<\(elementName)>"
        guard let address else { return type + " (\n" }
        return type + " <0x" + String(UInt(bitPattern: address), radix: 16) + "> (\n"
    }

    /// The elements' lines, then the count left out; an empty collection shows an empty line,
    /// as RealmSwift's does.
    private static func body(_ lines: [String], skipped: Int) -> String {
        lines.joined(separator: ",\n") + (skipped > 0 ? "\n\t... \(skipped) objects skipped." : "") + "\n)"
    }

    /// A nested description, its lines after the first one tab deeper.
    static func indented(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n\t")
    }
}

extension Object: CustomStringConvertible, RealmDescribable {
    func realmDescription(depth: Int) -> String {
        guard depth > 0 else { return RealmDescription.depthExceeded }
        guard !isInvalidated else { return "[invalid object]" }
        let schema = objectSchema
        let lines = schema.properties.filter { $0.type != .linkingObjects }.map { property in
            "\t\(property.name) = \(RealmDescription.indented(RealmDescription.describe(value(forKey: property.name), depth: depth - 1)));\n"
        }
        return "\(schema.className) {\n" + lines.joined() + "}"
    }
}

extension AnyRealmValue {
    /// The value held, as `Any` (nil for `.none`).
    fileprivate var describedValue: Any? {
        switch self {
        case .none: nil
        case .int(let value): value
        case .bool(let value): value
        case .float(let value): value
        case .double(let value): value
        case .string(let value): value
        case .data(let value): value
        case .date(let value): value
        case .object(let value): value
        case .objectId(let value): value
        case .decimal128(let value): value
        case .uuid(let value): value
        case .list(let value): value
        case .dictionary(let value): value
        }
    }
}

/// A list, set, results or linking objects, described as its first hundred elements, numbered.
protocol DescribedCollection: Collection, RealmDescribable {
    /// RealmSwift's name for the collection's type.
    static var describedName: String { get }
    /// Where the collection lives, shown as RealmSwift shows it; nil for a value type.
    var describedAddress: ObjectIdentifier? { get }
}

extension DescribedCollection {
    func realmDescription(depth: Int) -> String {
        RealmDescription.collection(Self.describedName, of: describedElementName, address: describedAddress, lazy.map { $0 as Any? }, count: count, depth: depth)
    }

    /// The name the description gives the elements' type (see `RealmDescription.typeName`).
    var describedElementName: String {
        RealmDescription.typeName(Element.self, className: (self as? _CollectionBase)?.location?.targetClassName)
    }
}

extension RealmDescription {
    /// The name a description gives `type`, the values of a collection or map: the class of
    /// the objects it holds, however they are read (`Wolf` for `DynamicObject`s and for
    /// `Wolf?`, as RealmSwift shows a map of objects), and `Int?` for an optional value.
    static func typeName(_ type: Any.Type, className: String?) -> String {
        let wrapped = (type as? any _OptionalValue.Type)?.wrappedType
        if (wrapped ?? type) is Object.Type { return className ?? "\(wrapped ?? type)" }
        if let wrapped { return typeName(wrapped, className: nil) + "?" }
        return "\(type)"
    }
}

extension Results: CustomStringConvertible, DescribedCollection {
    /// The results' first hundred objects, numbered, each as `Object.description` shows it.
    public var description: String { realmDescription(depth: RealmDescription.maximumDepth) }
    static var describedName: String { "Results" }
    var describedAddress: ObjectIdentifier? { ObjectIdentifier(self) }
}

extension List: CustomStringConvertible, DescribedCollection {
    /// The list's first hundred elements, numbered.
    public var description: String { realmDescription(depth: RealmDescription.maximumDepth) }
    static var describedName: String { "List" }
    var describedAddress: ObjectIdentifier? { ObjectIdentifier(self) }
}

extension MutableSet: CustomStringConvertible, DescribedCollection {
    /// The set's first hundred elements, numbered.
    public var description: String { realmDescription(depth: RealmDescription.maximumDepth) }
    static var describedName: String { "MutableSet" }
    var describedAddress: ObjectIdentifier? { ObjectIdentifier(self) }
}

extension LinkingObjects: CustomStringConvertible, DescribedCollection {
    /// The linking objects' first hundred objects, numbered.
    public var description: String { realmDescription(depth: RealmDescription.maximumDepth) }
    static var describedName: String { "LinkingObjects" }
    var describedAddress: ObjectIdentifier? { nil }
}

extension Map: CustomStringConvertible, RealmDescribable {
    /// The map's first hundred entries, `[key]: value`, in key order.
    public var description: String { realmDescription(depth: RealmDescription.maximumDepth) }

    func realmDescription(depth: Int) -> String {
        let valueName = RealmDescription.typeName(Value.self, className: location?.targetClassName)
        return RealmDescription.map("Map<\(Key.self), \(valueName)>", address: ObjectIdentifier(self), map { ("\($0.key)", $0.value as Any?) }, depth: depth)
    }
}
