import StorageEngine

/// Where results that are not a whole class take their objects from, in order. A description
/// rather than a closure, so that it can be frozen and passed to another realm.
enum ResultsBase: Sendable {
    /// The elements of the list in `column` of object `owner` of class `ownerClass`.
    case list(ownerClass: String, owner: UInt64, column: Int)
    /// The objects linking to an object through a `LinkingObjects` property.
    case linking(LinkingSource)
    /// A fixed list of objects (the linking objects as read once, or frozen results).
    case keys([UInt64])

    /// The keys of the objects, as `realm` reads them now.
    func keys(in realm: Realm) -> [UInt64] {
        switch self {
        case .list(let ownerClass, let owner, let column):
            guard let schema = realm.objectSchemas[ownerClass],
                  let table = realm.readTable(named: SchemaStore.tableName(forClass: ownerClass)),
                  let stored = readOrStop({ try table.value(owner, column: column) }),
                  let elements = realm.readTable(named: ListStore.tableName(forClass: ownerClass, property: schema.storedProperties[column])) else { return [] }
            let values = readOrStop { try ListStore.elements(in: elements, owner: owner, count: ListStore.count(stored)) }
            return values.compactMap { if case .objectKey(let key) = $0 { key } else { nil } }
        case .linking(let source):
            return realm.linkingKeys(to: source.target, of: source.targetClass, through: source.property)
        case .keys(let keys):
            return keys
        }
    }
}
