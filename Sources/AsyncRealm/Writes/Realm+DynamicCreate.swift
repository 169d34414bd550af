import StorageEngine

extension Realm {
    /// Creates an object of the class named `className` from `value` (a dictionary by property
    /// name, an array in property order, or an object whose properties of the same names give
    /// the values), without its Swift model: what a migration's
    /// `create` does. A property `value` does not give takes its value in `defaults`, and a
    /// link it does not give the object `modelType` links to when made with `init()` (a copy
    /// of it, as `create` of the model makes one), as RealmSwift's dynamic create does.
    ///
    /// Errors (an unknown property, a value of the wrong type) fail the write transaction.
    func dynamicCreate(_ className: String, value: Any, defaults: [RowValue], modelType: Object.Type? = nil) -> DynamicObject {
        checkThread()
        let info = dynamicClassInfo(className)
        let created = accessor(of: DynamicObject.self, key: 0, info: info)
        guard let transaction = transactionForChange("create objects inside a write transaction") else { return created }
        var values = defaults
        let given: [String: Any?]
        if let dictionary = value as? [String: Any?] {
            given = dictionary
        } else if let array = value as? [Any?] {
            given = Dictionary(uniqueKeysWithValues: zip(info.schema.storedProperties.map(\.name), array))
        } else if let object = value as? Object {
            given = object.values(for: info.schema)
        } else {
            fail(RealmError(code: .invalidValue, message: "the value of a new '\(className)' must be a dictionary, an array or an object, not \(type(of: value))"))
            return created
        }
        for (name, item) in given {
            guard let column = info.columns[name] else {
                fail(RealmError(code: .invalidValue, message: "'\(className)' has no stored property '\(name)'"))
                return created
            }
            let property = info.schema.storedProperties[column]
            guard let stored = storageValue(dynamic: item ?? nil, for: property) else {
                fail(RealmError(code: .invalidValue, message: "property '\(name)' of '\(className)' is \(property.typeName), which \(item.flatMap { $0 }.map { "\(type(of: $0))" } ?? "nil") is not"))
                return created
            }
            values[column] = stored
        }
        if let modelType, !linkDefaults(of: modelType, info: info, notIn: given, into: &values) { return created }
        do {
            let table = try writeTable(info, in: transaction)
            let key = table.nextKey
            try storeLists(of: info, key: key, in: &values, replacing: nil) { try table.insert($0, forKey: key) }
            bumpStamp()
            return accessor(of: DynamicObject.self, key: key, info: info)
        } catch {
            fail(error)
            return created
        }
    }

    /// Sets in `values` each to-one link of `info`'s class that `given` leaves out to a new
    /// object made from the one a fresh `modelType()` links to, if it links to one; false if
    /// making one failed the write transaction.
    private func linkDefaults(of modelType: Object.Type, info: ClassInfo, notIn given: [String: Any?], into values: inout [RowValue]) -> Bool {
        let links = info.schema.storedProperties.enumerated().filter { $0.element.type == .object && !$0.element.isCollection && given[$0.element.name] == nil }
        guard !links.isEmpty else { return true }
        let sample = modelType.init()
        for (column, property) in links {
            guard let linked = sample[property.name] as? Object else { continue }
            guard let stored = storageValue(dynamic: linked, for: property) else { return false }
            values[column] = stored
        }
        return true
    }
}
