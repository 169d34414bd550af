import StorageEngine

// What the `asyncrealm` inspector needs beyond the public API: the engine's handle on a realm's
// file, the keys that name objects without primary keys, and the file's tables in the words of
// the classes they store. Package scope: no app sees these.

extension Realm {
    /// The engine's handle on this realm's file: its versions, its space, its verification.
    package var storageDatabase: Database { database }
}

extension Object {
    /// The key of a managed object in its class's table (stable for the object's life, never
    /// reused while it lives); nil for an unmanaged object. What an export names an object
    /// without a primary key by.
    package var storageKey: UInt64? { managed?.key }
}

/// The file's tables and trees, described in the user's classes and properties.
package enum StoredTableDescription {
    /// What `table` (one of the engine's table names) and `structure` (a tree of it, as
    /// `Database.Damage.structure` names it) hold, in the words of `schema`'s classes: "the
    /// objects of class 'Dog'", "the index on 'Dog.name'", "the elements of list 'Person.dogs'".
    package static func describe(table: String?, structure: String, schema: Schema?) -> String {
        guard let table else { return "the file's \(structure)" }
        let owner: String
        var className: String?
        if table == SchemaStore.tableName {
            owner = "the stored schema"
        } else if table == SchemaStore.metadataTableName {
            owner = "the schema version"
        } else if table.hasPrefix("list_") {
            owner = "the elements of list '\(table.dropFirst("list_".count))'"
        } else if table.hasPrefix("class_") {
            className = String(table.dropFirst("class_".count))
            owner = "the objects of class '\(className!)'"
        } else {
            owner = "table '\(table)'"
        }
        let prefix = structure.hasPrefix("overflow value of") ? "a large value of "
            : structure.hasPrefix("posting tree of") ? "a posting tree of " : ""
        guard let range = structure.firstRange(of: "index on column "), let column = Int(structure[range.upperBound...]) else {
            return prefix + owner
        }
        guard let className, let properties = schema?[className]?.storedProperties, column < properties.count else {
            return prefix + "an index of \(owner)"
        }
        return prefix + "the index on '\(className).\(properties[column].name)'"
    }
}
