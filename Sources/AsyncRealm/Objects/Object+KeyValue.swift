import Foundation

extension Object {
    /// Creates an unmanaged object from a dictionary of property values by name, an array of
    /// values in property order, or another object; nested dictionaries and arrays create the
    /// objects and lists they stand for.
    ///
    /// - Important: A value of the wrong type or an unknown property name stops with a message
    ///   naming the class and property (`Realm.create` reports the same as a failed write).
    ///
    /// - Parameter value: A dictionary by property name, an array in declaration order, or
    ///   another object; nested dictionaries and arrays make linked objects.
    public convenience init(value: Any) {
        self.init()
        if let problem = assign(value) { stop(problem) }
    }

    /// Sets the unmanaged properties given by `value`; returns what was wrong, if anything.
    func assign(_ value: Any) -> String? {
        let schema: ObjectSchema
        do {
            schema = try SchemaDiscovery.objectSchema(for: type(of: self))
        } catch {
            return "\(error)"
        }
        switch value {
        case let dictionary as [String: Any?]:
            for (name, item) in dictionary.sorted(by: { $0.key < $1.key }) {
                if let problem = setUnmanaged(name, to: item, schema: schema) { return problem }
            }
        case let array as [Any?]:
            let properties = schema.storedProperties
            guard array.count <= properties.count else {
                return "'\(schema.className)' has \(properties.count) properties, but the array gives \(array.count) values"
            }
            for (property, item) in zip(properties, array) {
                if let problem = setUnmanaged(property.name, to: item, schema: schema) { return problem }
            }
        case let object as Object:
            for property in schema.storedProperties {
                if let problem = setUnmanaged(property.name, to: object.value(forKey: property.name), schema: schema) { return problem }
            }
        default:
            return "a '\(schema.className)' can be made from a dictionary, an array or an object, not from \(type(of: value))"
        }
        return nil
    }

    /// The `@Persisted` storage type of property `name`, found by reflection.
    func persistedType(of name: String) -> PersistedPropertyDescribing.Type? {
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "_" + name }) {
                return type(of: child.value) as? PersistedPropertyDescribing.Type
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    private func setUnmanaged(_ name: String, to value: Any?, schema: ObjectSchema) -> String? {
        guard let property = schema[name], property.type != .linkingObjects,
              let storage = persistedType(of: name), let offset = PersistedFields.offset(of: name, in: type(of: self)) else {
            return "'\(schema.className)' has no property '\(name)' that can be set"
        }
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        guard storage.assign(value, at: base + offset) else {
            return "property '\(name)' of '\(schema.className)' is \(property), which \(value.map { "\(type(of: $0))" } ?? "nil") is not"
        }
        return nil
    }

    // MARK: Key-value access

    /// The value of property `key`, managed or not; plain `nil` for an optional property that
    /// holds none (not an `Optional.none` boxed in `Any`), as in RealmSwift. The key `self` is
    /// the object itself, as in key-value coding.
    ///
    /// - Important: An unknown key stops with a message naming the class and key.
    ///
    /// - Parameter key: A property name, or `self`.
    /// - Returns: The property's value (nil for nil); linked objects and lists as objects and lists.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return self }
        // A dynamic object's values hold no `Optional` to open (`Realm.dynamicValue(named:of:)`):
        // asking each whether it is one, a cast to a protocol, was a twentieth of a migration
        // block reading a property and setting another.
        if let managed, self is DynamicObject { return managed.realm.dynamicValue(named: key, of: managed) }
        return unboxed(anyValue(forKey: key))
    }

    /// The value at a key path of property names joined by dots, through links and lists:
    /// `"owner.name"` is the linked owner's name (nil if there is no owner), and a list on the
    /// way gives an array of what each of its objects holds there, as key-value coding does.
    /// Where the path reaches a list or set, a collection operator may follow:
    /// `"dogs.@count"`, `"dogs.@sum.age"`, `"dogs.@max.birthdate"` (see `KeyValueOperator`).
    ///
    /// - Important: An unknown property or operator stops with a message naming it.
    ///
    /// - Parameter keyPath: Property names joined by dots.
    /// - Returns: The value at the end of the path.
    public func value(forKeyPath keyPath: String) -> Any? {
        Object.value(atPath: keyPath.split(separator: ".", omittingEmptySubsequences: false)[...], of: self)
    }

    /// What `value` holds at `path`: each name read in turn (`value(forKey:of:)`), and an
    /// operator (`@count`) applied to the collection reached with the rest of the path.
    static func value(atPath path: ArraySlice<Substring>, of value: Any?) -> Any? {
        guard let key = path.first else { return value }
        if key.hasPrefix("@") { return KeyValueOperator.apply(key, rest: path.dropFirst(), to: value) }
        return Self.value(atPath: path.dropFirst(), of: Self.value(forKey: String(key), of: value))
    }

    /// `key`'s value in `value`: an object's property, or for a list, set, results or array,
    /// each element's; nil for anything else.
    private static func value(forKey key: String, of value: Any?) -> Any? {
        switch value {
        case let object as Object: object.value(forKey: key)
        default: elements(ofCollection: value)?.map { Object.value(forKey: key, of: $0) }
        }
    }

    /// The elements of `value` if it is a collection (a list, set, results, array), nil if not.
    static func elements(ofCollection value: Any?) -> [Any?]? {
        switch value {
        case is String, is Data, is Object: nil
        case let elements as any Sequence: Self.elements(of: elements)
        default: nil
        }
    }

    private static func elements(of sequence: some Sequence) -> [Any?] {
        sequence.map { $0 as Any? }
    }

    private func anyValue(forKey key: String) -> Any? {
        if let managed {
            if self is DynamicObject { return managed.realm.dynamicValue(named: key, of: managed) }
            return managed.realm.value(named: key, of: managed, object: self)
        }
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "_" + key }),
               let persisted = child.value as? PersistedPropertyDescribing {
                return persisted.anyValue
            }
            mirror = current.superclassMirror
        }
        stop("'\(Self.className())' has no property '\(key)'")
    }

    /// `value` with any `Optional` it holds in `Any` opened: nil for none, the wrapped value
    /// otherwise. (Asked through a protocol `Optional` conforms to: a `Mirror` made for every
    /// value was most of what reading a property by name cost, in a migration block for one.)
    private func unboxed(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard let optional = value as? any OptionalProtocol else { return value }
        return unboxed(optional.wrappedAny)
    }

    /// Sets property `key`. On a managed object this needs a write transaction.
    ///
    /// - Important: An unknown key or a value of the wrong type stops with a message naming the
    ///   class and key.
    ///
    /// - Parameters:
    ///   - value: The new value, of the property's type (nil for an optional property).
    ///   - key: The property's name.
    public func setValue(_ value: Any?, forKey key: String) {
        if let managed {
            if self is DynamicObject {
                managed.realm.setDynamicValue(value, named: key, of: managed)
            } else {
                managed.realm.setValue(value, named: key, of: managed, object: self)
            }
            return
        }
        let schema = try? SchemaDiscovery.objectSchema(for: type(of: self))
        guard let schema else { stop("'\(Self.className())' is not a valid model") }
        if let problem = setUnmanaged(key, to: value, schema: schema) { stop(problem) }
    }

    /// The value of property `key`, as `value(forKey:)` and `setValue(_:forKey:)`.
    ///
    /// - Parameter key: The property's name.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }
}
