import StorageEngine

extension Realm {
    /// Creates an object of the class named `className` from `value` (a dictionary by property
    /// name, an array in property order, or an object whose properties of the same names give
    /// the values), without its Swift model: what a migration's
    /// `create` does. A property `value` does not give takes its value in `defaults`.
    ///
    /// Errors (an unknown property, a value of the wrong type) fail the write transaction.
    func dynamicCreate(_ className: String, value: Any, defaults: [RowValue]) -> DynamicObject {
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
}
