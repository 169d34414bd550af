import StorageEngine

/// What a stream counts as a modification of the objects of one class: which of their columns,
/// and, through which links and lists, which changes of the objects they link to.
///
/// Without key paths a stream observes every property, and the properties of linked objects
/// to a depth of four links, as Realm does: a change to a dog counts as a modification of its
/// owner. With key paths (`changes(keyPaths: ["name", "dogs.age"])`) it observes exactly those
/// paths, at any depth; a path naming a link or list observes which objects it holds, not
/// their properties.
final class ObservedPaths {
    /// How deep links are followed when no key paths are given.
    static let defaultLinkDepth = 4

    struct Link {
        let property: Property
        let column: Int
        let target: ObservedPaths
    }

    let schema: ObjectSchema
    let tableName: String
    /// The observed columns; nil for all of them.
    let columns: Set<Int>?
    let links: [Link]

    private init(schema: ObjectSchema, columns: Set<Int>?, links: [Link]) {
        self.schema = schema
        self.tableName = SchemaStore.tableName(forClass: schema.className)
        self.columns = columns
        self.links = links
    }

    /// Every property of `schema`, and of linked objects to `depth` links.
    static func everything(of schema: ObjectSchema, schemas: [String: ObjectSchema], depth: Int = defaultLinkDepth) -> ObservedPaths {
        var links: [Link] = []
        if depth > 0 {
            for (column, property) in schema.storedProperties.enumerated() {
                guard let targetName = property.objectClassName, let target = schemas[targetName] else { continue }
                links.append(Link(property: property, column: column, target: everything(of: target, schemas: schemas, depth: depth - 1)))
            }
        }
        return ObservedPaths(schema: schema, columns: nil, links: links)
    }

    /// Exactly `keyPaths` (dotted property names) of `schema`.
    ///
    /// - Important: A path naming no property stops with a message naming it.
    static func paths(_ keyPaths: [String], of schema: ObjectSchema, schemas: [String: ObjectSchema]) -> ObservedPaths {
        var columns = Set<Int>()
        var nested: [Int: [String]] = [:]
        for keyPath in keyPaths {
            require(KeyPathText.components(keyPath) != nil, "cannot observe '\(schema.className)': \(KeyPathText.malformed(keyPath))")
            let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
            guard let column = schema.storedProperties.firstIndex(where: { $0.name == parts[0] }) else {
                stop("'\(schema.className)' has no stored property '\(parts[0])' to observe (key path '\(keyPath)')")
            }
            if parts.count == 1 {
                columns.insert(column)
            } else {
                guard schema.storedProperties[column].objectClassName != nil else {
                    stop("'\(schema.className).\(parts[0])' is not a link or list of objects, so the key path '\(keyPath)' goes nowhere")
                }
                nested[column, default: []].append(parts[1])
            }
        }
        let links = nested.sorted { $0.key < $1.key }.map { column, rest -> Link in
            let property = schema.storedProperties[column]
            guard let target = schemas[property.objectClassName!] else {
                stop("the class '\(property.objectClassName!)' of '\(schema.className).\(property.name)' is not in the realm's schema")
            }
            return Link(property: property, column: column, target: paths(rest, of: target, schemas: schemas))
        }
        return ObservedPaths(schema: schema, columns: columns, links: links)
    }

    /// Every table whose changes can matter.
    private(set) lazy var tableNames: Set<String> = {
        var names: Set<String> = [tableName]
        for (column, property) in schema.storedProperties.enumerated() where property.isCollection && observes(column) {
            names.insert(ListStore.tableName(forClass: schema.className, property: property))
        }
        for link in links { names.formUnion(link.target.tableNames) }
        return names
    }()

    private func observes(_ column: Int) -> Bool {
        columns?.contains(column) ?? true
    }

    /// Whether `changes` touches any table these paths read.
    func isTouched(by changes: Changeset) -> Bool {
        changes.tables.keys.contains { tableNames.contains($0) }
    }

    /// The objects of the class that existed before and after `changes` and count as
    /// modified: an observed column changed, an observed list's elements changed, or an
    /// observed linked object was modified. `realm` reads the version after the changes.
    func modifiedKeys(in changes: Changeset, realm: Realm) -> Set<UInt64> {
        guard isTouched(by: changes) else { return [] }
        var keys = Set<UInt64>()
        if let table = changes.tables[tableName] {
            for (key, changed) in table.modified where columns == nil || changed.isEmpty || !changed.isDisjoint(with: columns!) {
                keys.insert(key)
            }
        }
        for (column, property) in schema.storedProperties.enumerated() where property.isCollection && observes(column) {
            guard let elements = changes.tables[ListStore.tableName(forClass: schema.className, property: property)] else { continue }
            for key in elements.inserted.union(elements.deleted).union(elements.modified.keys) {
                keys.insert(ListStore.owner(ofKey: key))
            }
        }
        for link in links {
            let targets = link.target.modifiedKeys(in: changes, realm: realm)
            for target in targets { keys.formUnion(owners(linkingTo: target, through: link, realm: realm)) }
        }
        if let table = changes.tables[tableName], !table.insertedKeys.isEmpty {
            keys = keys.filter { !table.insertedKeys.contains($0) }
        }
        return keys
    }

    /// The objects of this class linking to `target` through `link`, found by the backlink index.
    func owners(linkingTo target: UInt64, through link: Link, realm: Realm) -> [UInt64] {
        realm.keys(of: schema, linkingTo: target, throughColumn: link.column)
    }
}
