import StorageEngine

/// Finds the schema of model classes by reflecting on an instance, once per class.
///
/// A class's schema is its `@Persisted` properties in declaration order (inherited ones first).
/// `schema(for:)` also registers every class the given ones link to, and checks what a single
/// class cannot: that each `LinkingObjects` names a property that links back.
enum SchemaDiscovery {
    /// A class's schema and the classes it links to.
    private struct Discovered: @unchecked Sendable {
        // @unchecked: metatypes carry no mutable state; only the compiler's view of metatypes of
        // non-Sendable classes keeps this from being inferred Sendable.
        let schema: ObjectSchema
        let linkedTypes: [Object.Type]
    }

    private static let cache = Locked<[ObjectIdentifier: Discovered]>([:])

    /// The schema of `type` alone.
    ///
    /// - Throws: `RealmError` with code `invalidSchema` naming the class and property.
    static func objectSchema(for type: Object.Type) throws -> ObjectSchema {
        try discover(type).schema
    }

    /// The schema of `types` and of every class they link to, directly or not.
    ///
    /// - Throws: `RealmError` with code `invalidSchema` naming the class and property.
    static func schema(for types: [Object.Type]) throws -> Schema {
        let found = try closure(of: types).schemas
        for objectSchema in found.values {
            for property in objectSchema.properties where property.type == .linkingObjects {
                try checkOrigin(of: property, in: objectSchema, against: found)
            }
        }
        return Schema(Array(found.values))
    }

    /// The model classes `types` name and link to, directly or not, by class name.
    static func modelTypes(for types: [Object.Type]) throws -> [String: Object.Type] {
        try closure(of: types).types
    }

    /// `types` and every class they link to, directly or not: their schemas and classes.
    private static func closure(of types: [Object.Type]) throws -> (schemas: [String: ObjectSchema], types: [String: Object.Type]) {
        var pending = types
        var found: [String: ObjectSchema] = [:]
        var typesByName: [String: Object.Type] = [:]
        while let type = pending.popLast() {
            let discovered = try discover(type)
            let name = discovered.schema.className
            if let existing = typesByName[name] {
                guard existing == type else {
                    throw RealmError(code: .invalidSchema, message: "two model classes are named '\(name)'; class names must be unique in a realm")
                }
                continue
            }
            typesByName[name] = type
            found[name] = discovered.schema
            pending.append(contentsOf: discovered.linkedTypes)
        }
        return (found, typesByName)
    }

    private static func checkOrigin(of property: Property, in objectSchema: ObjectSchema, against schemas: [String: ObjectSchema]) throws {
        let originClass = property.objectClassName ?? "?"
        let originName = property.linkOriginPropertyName ?? ""
        let problem = "property '\(property.name)' of '\(objectSchema.className)' is LinkingObjects<\(originClass)>(originProperty: \"\(originName)\")"
        guard let origin = schemas[originClass]?[originName] else {
            throw RealmError(code: .invalidSchema, message: "\(problem), but '\(originClass)' has no property '\(originName)'")
        }
        guard origin.type == .object, origin.objectClassName == objectSchema.className else {
            throw RealmError(code: .invalidSchema, message: "\(problem), but '\(originClass).\(originName)' does not link to '\(objectSchema.className)'")
        }
    }

    private static func discover(_ type: Object.Type) throws -> Discovered {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let discovered = try reflect(type)
        cache.withLock { $0[key] = discovered }
        return discovered
    }

    private static func reflect(_ type: Object.Type) throws -> Discovered {
        let className = type.className()
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: type.init())
        while let current = mirror, current.subjectType != Object.self, current.subjectType != EmbeddedObject.self {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [Property] = []
        var linkedTypes: [Object.Type] = []
        let named = try NamedOptions(of: type, persisted: mirrors.flatMap(\.children).compactMap(persistedName))
        for child in mirrors.flatMap(\.children) {
            guard let name = persistedName(child), let persisted = child.value as? PersistedPropertyDescribing,
                  !named.ignored.contains(name) else {
                continue  // not @Persisted, or ignored: not stored, as RealmSwift ignores plain properties
            }
            var options = persisted.options
            if named.primaryKey == name { options.bits |= PersistedOptions(isPrimaryKey: true).bits }
            if named.indexed.contains(name) { options.bits |= PersistedOptions(isIndexed: true).bits }
            let property = try makeProperty(name: name, kind: persisted.kind, options: options, originProperty: persisted.originProperty, className: className, columnName: named.columnNames[name])
            properties.append(property)
            if let linked = persisted.kind.objectType { linkedTypes.append(linked) }
        }
        let isEmbedded = type is EmbeddedObject.Type
        if isEmbedded, let primaryKey = properties.first(where: \.isPrimary) {
            throw RealmError(code: .invalidSchema, message: "'\(className)' is an EmbeddedObject and cannot have a primary key ('\(primaryKey.name)'): it is found through the object that holds it; make it an Object to give it one")
        }
        try checkColumnNames(of: properties, className: className)
        let primaryKeys = properties.filter(\.isPrimary)
        if primaryKeys.count > 1 {
            throw RealmError(code: .invalidSchema, message: "'\(className)' declares \(primaryKeys.count) primary keys (\(primaryKeys.map { "'\($0.name)'" }.joined(separator: ", "))); a class can have at most one")
        }
        return Discovered(schema: ObjectSchema(className: className, properties: properties, isEmbedded: isEmbedded), linkedTypes: linkedTypes)
    }

    /// Checks that no two stored properties share a column name and none is empty.
    private static func checkColumnNames(of properties: [Property], className: String) throws {
        var seen: [String: String] = [:]
        for property in properties where property.type != .linkingObjects {
            guard !property.columnName.isEmpty else {
                throw RealmError(code: .invalidSchema, message: "'\(className).propertiesMapping()' gives '\(property.name)' an empty column name")
            }
            if let other = seen[property.columnName] {
                throw RealmError(code: .invalidSchema, message: "'\(className)' stores both '\(other)' and '\(property.name)' under the column name '\(property.columnName)'; give each its own in propertiesMapping()")
            }
            seen[property.columnName] = property.name
        }
    }

    /// The name of the property whose `@Persisted` storage `child` is, or nil.
    private static func persistedName(_ child: Mirror.Child) -> String? {
        guard let label = child.label, label.hasPrefix("_"), child.value is PersistedPropertyDescribing else { return nil }
        return String(label.dropFirst())
    }

    /// What a model names in RealmSwift's older class methods: `primaryKey()`,
    /// `indexedProperties()` and `ignoredProperties()`, each checked to name a `@Persisted`
    /// property.
    private struct NamedOptions {
        let primaryKey: String?
        let indexed: Set<String>
        let ignored: Set<String>
        /// `propertiesMapping()`: column names by property name.
        let columnNames: [String: String]

        init(of type: Object.Type, persisted: [String]) throws {
            primaryKey = type.primaryKey()
            indexed = Set(type.indexedProperties())
            ignored = Set(type.ignoredProperties())
            columnNames = type.propertiesMapping()
            let known = Set(persisted)
            let className = type.className()
            for (method, names) in [("primaryKey()", primaryKey.map { [$0] } ?? []), ("indexedProperties()", Array(indexed)), ("ignoredProperties()", Array(ignored)), ("propertiesMapping()", Array(columnNames.keys))] {
                for name in names.sorted() where !known.contains(name) {
                    throw RealmError(code: .invalidSchema, message: "'\(className).\(method)' names '\(name)', which is not a @Persisted property of '\(className)'")
                }
            }
            if let primaryKey, ignored.contains(primaryKey) {
                throw RealmError(code: .invalidSchema, message: "'\(className)' both ignores and makes '\(primaryKey)' its primary key")
            }
        }
    }

    private static func makeProperty(name: String, kind: _PersistedKind, options: PersistedOptions, originProperty: String?, className: String, columnName: String?) throws -> Property {
        let what = "property '\(name)' of '\(className)'"
        let linkedClass = kind.objectType?.className()
        let collection = kind.isArray ? "List" : kind.isSet ? "MutableSet" : kind.isMap ? "Map" : nil
        if kind.type == .object && (collection == nil || kind.isMap) && !kind.isOptional {
            let declaration = kind.isMap ? "Map<String, \(linkedClass ?? "?")?>" : "\(linkedClass ?? "?")?"
            throw RealmError(code: .invalidSchema, message: "\(what) links to '\(linkedClass ?? "?")' and must be optional: declare it as '\(declaration)'")
        }
        if kind.type == .object, let collection, !kind.isMap, kind.isOptional {
            throw RealmError(code: .invalidSchema, message: "\(what) is a \(collection) of optional '\(linkedClass ?? "?")'; a \(collection) of objects holds non-optional objects")
        }
        if kind.isSet, let linked = kind.objectType, linked is EmbeddedObject.Type {
            throw RealmError(code: .invalidSchema, message: "\(what) is a MutableSet of the EmbeddedObject '\(linkedClass ?? "?")'; a set cannot hold embedded objects: use a List")
        }
        if options.isPrimaryKey && (collection != nil || !kind.type.canBePrimaryKey) {
            throw RealmError(code: .invalidSchema, message: "\(what) cannot be a primary key: primary keys are Int, String, UUID or ObjectId")
        }
        if options.isIndexed && (collection != nil || !(kind.type.canBeIndexed || kind.type == .any)) {
            throw RealmError(code: .invalidSchema, message: "\(what) cannot be indexed: indexes are on Bool, integer, String, Date, UUID, ObjectId or AnyRealmValue properties")
        }
        if kind.type == .linkingObjects && (originProperty ?? "").isEmpty {
            throw RealmError(code: .invalidSchema, message: "\(what) is LinkingObjects and needs @Persisted(originProperty:) naming the property that links here")
        }
        return Property(
            name: name, type: kind.type, isOptional: kind.isOptional, isArray: kind.isArray, isSet: kind.isSet, isMap: kind.isMap,
            isPrimary: options.isPrimaryKey, isIndexed: options.isIndexed || options.isPrimaryKey,
            objectClassName: linkedClass,
            linkOriginPropertyName: kind.type == .linkingObjects ? originProperty : nil,
            columnName: kind.type == .linkingObjects ? nil : columnName)
    }
}
