import Foundation
import StorageEngine

/// The automatic changes a migration makes to one class's tables, and what it checks after the
/// migration block.
///
/// Objects keep their row keys, so links to them stay valid. A row is rewritten into the new
/// schema's column order: a property both schemas have with the same stored type keeps its
/// value (a null in a property that became required becomes the default), any other new
/// property takes its default. Indexes are dropped before and built again after, since they
/// are kept by column number. The rows as they were stay readable in the transaction's base
/// version, which is what `oldObject` and `renameProperty` read.
final class ClassMigration {
    let old: ObjectSchema?
    let new: ObjectSchema?
    /// The value of each stored property of `new` in an object that has none yet.
    let defaults: [RowValue]
    /// The model class of `new`, whose `init()` gives the objects a new object links to.
    let modelType: Object.Type?
    private let transaction: WriteTransaction
    private unowned let realm: Realm
    /// Whether the primary key index waits for the block to make the keys unique.
    private var primaryKeyDeferred = false

    init(old: ObjectSchema?, new: ObjectSchema?, defaults: [RowValue], modelType: Object.Type?, realm: Realm) {
        self.old = old
        self.new = new
        self.defaults = defaults
        self.modelType = modelType
        self.realm = realm
        transaction = realm.transaction!
    }

    private var className: String { (new ?? old)!.className }
    private var tableName: String { SchemaStore.tableName(forClass: className) }

    // MARK: Defaults

    /// The stored value of each stored property of `schema` in a new object: the model's
    /// initial value (as in `T()`) when the model class is known, the type's zero otherwise;
    /// nil for links and empty for lists.
    static func defaults(of schema: ObjectSchema, type: Object.Type?, realm: Realm) -> [RowValue] {
        guard let type else { return schema.storedProperties.map { zero($0, realm: realm) } }
        let sample = type.init()
        let info = ClassInfo(schema: schema, type: type)
        let fields = info.storageFields(of: sample)
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(sample).toOpaque())
        return schema.storedProperties.enumerated().map { column, property in
            if property.isCollection || property.type == .object { return zero(property, realm: realm) }
            return fields[column].storageValue(in: base, realm: realm)
        }
    }

    /// The stored zero of `property`: null if optional, an empty list, or the type's zero.
    static func zero(_ property: Property, realm: Realm) -> RowValue {
        if property.isCollection { return .int(0) }
        if property.isOptional || property.type == .object { return .null }
        return zero(of: property.type, realm: realm)
    }

    private static func zero(of type: PropertyType, realm: Realm) -> RowValue {
        switch type {
        case .int: .int(0)
        case .bool: .bool(false)
        case .float: .float(0)
        case .double: .double(0)
        case .string: .string("")
        case .data: .binary([])
        case .date: Date(timeIntervalSince1970: 0)._toStorage(realm: realm).value
        case .uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))._toStorage(realm: realm).value
        case .decimal128: Decimal(0)._toStorage(realm: realm).value
        case .objectId: ObjectId()._toStorage(realm: realm).value
        case .object, .linkingObjects, .any: .null
        }
    }

    // MARK: Before the block

    func applyAutomaticChanges() throws {
        switch (old, new) {
        case (let old?, nil): try drop(old)
        case (nil, let new?): try SchemaStore.createTables(for: new, in: transaction)
        case (let old?, let new?) where !SchemaDifferences.between(stored: old, model: new).isEmpty:
            // The rows are rewritten when first needed (`materialize`), so that the renames
            // the block starts with cost no pass of their own.
            sources = new.storedProperties.map { Self.source(of: $0, in: old) }
            isPending = true
        default: break
        }
    }

    /// Whether the rows still have the old schema's columns (see `materialize`).
    private(set) var isPending = false
    /// For each stored property of the new schema, the old schema's column it takes its values
    /// from: the property of the same name and stored type, or the one renamed to it.
    private var sources: [Int?] = []
    /// The list properties renamed before the rows were rewritten: new name -> old name.
    private var renamedLists: [String: String] = [:]

    private func drop(_ old: ObjectSchema) throws {
        try transaction.dropTable(tableName)
        for property in old.storedProperties where property.isCollection {
            try transaction.dropTable(ListStore.tableName(forClass: className, property: property))
        }
    }

    /// The column of `old` whose values the stored property `property` of the new schema
    /// keeps: the property of the same name with the same stored type.
    private static func source(of property: Property, in old: ObjectSchema) -> Int? {
        guard let column = old.storedProperties.firstIndex(where: { $0.name == property.columnName }) else { return nil }
        return sameStorage(old.storedProperties[column], property) ? column : nil
    }

    static func sameStorage(_ old: Property, _ new: Property) -> Bool {
        old.type == new.type && old.isArray == new.isArray && old.isSet == new.isSet && old.isMap == new.isMap && old.objectClassName == new.objectClassName
    }

    /// Rewrites the rows into the new schema's columns, in one pass over the base version's
    /// rows, and builds the new schema's indexes. Done before the block first reads or writes
    /// objects, and at the end for classes it never touched.
    func materialize() throws {
        guard isPending, let old, let new else { return }
        isPending = false
        let table = transaction.createTable(tableName)
        for column in table.indexedColumns { try table.removeIndex(on: column) }
        try rewriteLists(from: old, to: new)
        let sources = self.sources
        let keepsEveryColumn = sources.count == old.storedProperties.count && sources.enumerated().allSatisfy { column, source in
            source == column && (new.storedProperties[column].isOptional || !old.storedProperties[column].isOptional)
        }
        if !keepsEveryColumn {
            var oldValues: [RowValue] = []
            let transform = { (row: [RowValue], values: inout [RowValue]) in
                for (column, property) in new.storedProperties.enumerated() {
                    guard let source = sources[column], source < row.count else {
                        values.append(self.defaults[column])
                        continue
                    }
                    let value = row[source]
                    values.append(value == .null && !property.isOptional ? self.defaults[column] : value)
                }
            }
            if table.rowsAreUnchanged, let base = transaction.base.tableIfPresent(tableName) {
                try table.rewriteRows(from: base) { _, row, values in
                    try row.decode(into: &oldValues)
                    transform(oldValues, &values)
                }
            } else {
                var values: [RowValue] = []
                for key in try table.keys() {
                    guard let row = try table.row(key) else { continue }
                    values.removeAll(keepingCapacity: true)
                    transform(row, &values)
                    try table.update(key, to: values)
                }
            }
        }
        try addIndexes(of: new, to: table)
    }

    /// Keeps the element tables of the lists both schemas have (their nulls made defaults if
    /// the elements became required), copies those of renamed lists, drops the others, and
    /// creates the new ones.
    private func rewriteLists(from old: ObjectSchema, to new: ObjectSchema) throws {
        var kept: Set<String> = []
        for (column, property) in new.storedProperties.enumerated() where property.isCollection {
            let elementsName = ListStore.tableName(forClass: className, property: property)
            if let oldName = renamedLists[property.columnName] {
                try copyElements(of: oldName, to: property)
            } else if let source = sources[column] {
                kept.insert(property.columnName)
                if old.storedProperties[source].isOptional && !property.isOptional {
                    try replaceNulls(in: transaction.createTable(elementsName), with: Self.zero(of: property.type, realm: realm), isMap: property.isMap)
                }
            } else {
                try transaction.dropTable(elementsName)
                try SchemaStore.createListTable(for: property, of: className, in: transaction)
            }
        }
        for property in old.storedProperties where property.isCollection && !kept.contains(property.name) && new[columnName: property.name]?.isCollection != true {
            try transaction.dropTable(ListStore.tableName(forClass: className, property: property))
        }
    }

    private func replaceNulls(in table: TableWriter, with value: RowValue, isMap: Bool) throws {
        for key in try table.keys() where try table.value(key, column: 0) == .null {
            if isMap {
                try MapStore.setValue(value, ofEntry: key, in: table)
            } else {
                _ = try table.set(key, column: 0, to: value)
            }
        }
    }

    /// Builds `schema`'s indexes on `table`. A primary key whose values are not unique yet (a
    /// new primary key) gets an index that allows duplicates until `finish`, so that the block
    /// can make them unique.
    private func addIndexes(of schema: ObjectSchema, to table: TableWriter) throws {
        do {
            try SchemaStore.addIndexes(of: schema, in: transaction)
        } catch let error as StorageError where error.code == .duplicateKey {
            guard let column = schema.storedProperties.firstIndex(where: \.isPrimary) else { throw error }
            try table.addIndex(on: column, unique: false)
            primaryKeyDeferred = true
            try SchemaStore.addIndexes(of: schema, in: transaction)
        }
    }

    // MARK: Renames

    /// Makes `newName` take the values (or list elements) `oldName` has in the base version:
    /// by changing where the rewrite takes the column from while the rows are not rewritten
    /// yet, and by copying the values otherwise.
    func renameProperty(from oldName: String, to newName: String, old: ObjectSchema, new: ObjectSchema) throws {
        let problem = "cannot rename '\(className).\(oldName)' to '\(newName)'"
        guard let oldColumn = old.storedProperties.firstIndex(where: { $0.name == oldName }) else {
            throw RealmError(code: .schemaMismatch, message: "\(problem): the old schema has no stored property '\(oldName)'")
        }
        guard let newColumn = new.storedProperties.firstIndex(where: { $0.columnName == newName }) else {
            throw RealmError(code: .schemaMismatch, message: "\(problem): the new schema has no stored property '\(newName)'")
        }
        guard new[columnName: oldName] == nil, old[newName] == nil else {
            throw RealmError(code: .schemaMismatch, message: "\(problem): '\(new[columnName: oldName] != nil ? oldName : newName)' is in both the old and the new schema")
        }
        let from = old.storedProperties[oldColumn], to = new.storedProperties[newColumn]
        guard Self.sameStorage(from, to) else {
            throw RealmError(code: .schemaMismatch, message: "\(problem): it would change from \(from.typeName) to \(to.typeName); convert the values in enumerateObjects instead")
        }
        if isPending {
            sources[newColumn] = oldColumn
            if to.isCollection { renamedLists[newName] = oldName }
            return
        }
        guard let base = transaction.base.tableIfPresent(tableName) else { return }
        let table = transaction.createTable(tableName)
        try RealmError.translating {
            try base.scan(0...UInt64.max) { key, row in
                var value = try row.column(oldColumn)
                if value == .null && !to.isOptional { value = defaults[newColumn] }
                _ = try table.set(key, column: newColumn, to: value)
                return true
            }
            if to.isCollection { try copyElements(of: oldName, to: to) }
        }
    }

    /// Fills the element table of `property` with the elements of the list `oldName` in the
    /// base version (same keys: same owners and positions).
    private func copyElements(of oldName: String, to property: Property) throws {
        let newName = ListStore.tableName(forClass: className, property: property)
        try transaction.dropTable(newName)
        try SchemaStore.createListTable(for: property, of: className, in: transaction)
        guard let source = transaction.base.tableIfPresent(ListStore.tableName(forClass: className, columnName: oldName)) else { return }
        let elements = transaction.createTable(newName)
        let zero = Self.zero(of: property.type, realm: realm)
        try source.scan(0...UInt64.max) { key, row in
            // Column 0 is the element (a map entry's value); a map's entries have their key
            // in column 1, copied as it is.
            var values = try row.decoded()
            if values[0] == .null && !property.isOptional { values[0] = zero }
            try elements.insert(values, forKey: key)
            return true
        }
    }

    // MARK: After the block

    /// For a class that became embedded: deletes the objects nothing holds, as Realm does, and
    /// throws if an object is held by more than one, which an embedded object cannot be.
    private func settleEmbedded() throws {
        guard let new, new.isEmbedded, old?.isEmbedded != true, let table = transaction.tableIfPresent(tableName) else { return }
        let holders = realm.objectSchemas.values.flatMap { schema in
            schema.storedProperties.indices.filter { schema.storedProperties[$0].objectClassName == className }.map { (schema, $0) }
        }
        for key in try table.keys() {
            let parents = holders.reduce(0) { $0 + realm.keys(of: $1.0, linkingTo: key, throughColumn: $1.1).count }
            if parents == 0 {
                try realm.deleteEmbedded(key, className: className, in: transaction)
            } else if parents > 1 {
                throw RealmError(code: .schemaMismatch, message: "'\(className)' became an EmbeddedObject, but one of its objects is held by \(parents) links; an embedded object has exactly one parent, so give each holder its own copy in the migration block")
            }
        }
    }

    /// Makes the primary key index unique, once the block has had its chance to make the keys
    /// unique.
    ///
    /// - Throws: `duplicatePrimaryKey` naming the class, the property and a shared value.
    func finish() throws {
        try settleEmbedded()
        guard primaryKeyDeferred, let new, let column = new.storedProperties.firstIndex(where: \.isPrimary) else { return }
        let table = transaction.createTable(tableName)
        var seen: Set<RowValue> = []
        for key in try table.keys() {
            let value = try table.value(key, column: column) ?? .null
            guard seen.insert(value).inserted else {
                let shown = realm.dynamicValue(value, of: new.storedProperties[column]).map { "\($0)" } ?? "nil"
                throw RealmError(code: .duplicatePrimaryKey, message: "after the migration, more than one '\(className)' has the primary key '\(new.storedProperties[column].name)' = \(shown); give each object a distinct value in the migration block (migration.enumerateObjects(ofType: \"\(className)\"))")
            }
        }
        try table.removeIndex(on: column)
        try table.addIndex(on: column, unique: true)
    }
}
