import StorageEngine
@_spi(Reflection) import Swift

/// Where the `@Persisted` storage of each property sits inside instances of a model class, so
/// that an unmanaged object's properties can be set by name (`Object(value:)`,
/// `setValue(_:forKey:)`).
///
/// Swift has no key-value coding; the standard library's reflection SPI (`_forEachField`) gives
/// each stored field's name and byte offset, which is what RealmSwift gets from the
/// Objective-C runtime. The offsets are read once per class.
enum PersistedFields {
    private struct Offsets: @unchecked Sendable {
        // @unchecked: immutable once built; only metatypes keep it from being inferred Sendable.
        let byName: [String: Int]
    }

    private static let cache = Locked<[ObjectIdentifier: Offsets]>([:])

    /// The type of each `@Persisted` storage of `sample`, by property name.
    static func storageTypes(of sample: Object) -> [String: PersistedPropertyDescribing.Type] {
        var types: [String: PersistedPropertyDescribing.Type] = [:]
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            for child in current.children {
                if let label = child.label, let persisted = child.value as? PersistedPropertyDescribing {
                    types[String(label.dropFirst())] = Swift.type(of: persisted)
                }
            }
            mirror = current.superclassMirror
        }
        return types
    }

    /// How many stored fields instances of `type` have besides `Object`'s own: `@Persisted`
    /// storage and anything else the model declares.
    static func storedFieldCount(of type: Object.Type) -> Int {
        // A class's fields include its superclasses' (`Object`'s own among them).
        func fields(of someClass: AnyClass) -> Int {
            var count = 0
            _ = _forEachField(of: someClass, options: _EachFieldOptions(rawValue: 1 << 0)) { _, _, _, _ in
                count += 1
                return true
            }
            return count
        }
        return fields(of: type) - fields(of: Object.self)
    }

    /// The byte offset of property `name`'s storage in instances of `type`, if it has one.
    static func offset(of name: String, in type: Object.Type) -> Int? {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached.byName[name] }
        var byName: [String: Int] = [:]
        var current: AnyClass? = type
        while let someClass = current, someClass != Object.self {
            // Option 1 << 0 is `.classType`: the fields of a class instance, after its header.
            _ = _forEachField(of: someClass, options: _EachFieldOptions(rawValue: 1 << 0)) { field, offset, _, _ in
                let label = String(cString: field)
                if label.hasPrefix("_") { byName[String(label.dropFirst()), default: offset] = offset }
                return true
            }
            current = _getSuperclass(someClass)
        }
        cache.withLock { $0[key] = Offsets(byName: byName) }
        return byName[name]
    }
}
