/// What one commit did to one table (invariant 6).
package struct TableChangeset: Sendable, Equatable {
    /// Rows inserted by the commit (and not deleted again).
    package var insertedKeys = RowKeySet()
    /// Rows that existed before the commit and no longer exist.
    package var deletedKeys = RowKeySet()
    /// Rows that existed before the commit and still exist, with the columns that changed; an
    /// empty set means the row was deleted and inserted again, so every column may differ.
    package var modified: [UInt64: Set<Int>] = [:]

    package init() {}

    package var inserted: Set<UInt64> { insertedKeys.set }
    package var deleted: Set<UInt64> { deletedKeys.set }

    package var isEmpty: Bool { insertedKeys.isEmpty && deletedKeys.isEmpty && modified.isEmpty }

    mutating func recordInsert(_ key: UInt64) {
        if !deletedKeys.isEmpty, deletedKeys.remove(key) {
            // Deleted and inserted again under the same key: to an observer the row was replaced,
            // which an empty column set records.
            modified[key] = []
        } else {
            insertedKeys.insert(key)
        }
    }

    mutating func recordDelete(_ key: UInt64) {
        if insertedKeys.remove(key) { return }
        modified[key] = nil
        deletedKeys.insert(key)
    }

    /// Records the deletion of every key of `keys`, increasing (a whole table's rows).
    mutating func recordDeletes(increasing keys: [UInt64]) {
        guard insertedKeys.isEmpty && modified.isEmpty && deletedKeys.isEmpty else {
            for key in keys { recordDelete(key) }
            return
        }
        deletedKeys.insert(increasing: keys)
    }

    mutating func recordModify(_ key: UInt64, columns: some Sequence<Int>) {
        guard !insertedKeys.contains(key) else { return }
        modified[key, default: []].formUnion(columns)
    }
}

/// What one commit did, per table. Notifications are built from these, never by re-reading
/// whole tables.
package struct Changeset: Sendable, Equatable {
    package var tables: [String: TableChangeset] = [:]

    package init() {}

    package var isEmpty: Bool { tables.values.allSatisfy(\.isEmpty) }
}

/// The outcome of a commit.
package struct CommitResult: Sendable, Equatable {
    /// The version the commit produced (the base version when there was nothing to write).
    package var version: UInt64
    package var changeset: Changeset
    /// The bytes of the pages the commit wrote (the commit record and header not included):
    /// what a change cost, for tests that check it is proportional to the change.
    var pageBytes: UInt64
}
