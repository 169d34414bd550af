/// What one commit did to one table (invariant 6).
package struct TableChangeset: Sendable, Equatable {
    /// Rows inserted by the commit (and not deleted again).
    package var inserted: Set<UInt64> {
        get { insertedRun.isEmpty ? insertedSet : insertedSet.union(insertedRun) }
        set {
            insertedSet = newValue
            insertedRun = []
        }
    }
    /// `inserted` is kept in two parts: while keys are inserted in increasing order they are
    /// appended to `insertedRun` (a bulk insert records a row for the price of an array append,
    /// not a hash); from the first key out of order on, they go to `insertedSet`. The two never
    /// share a key.
    private var insertedSet: Set<UInt64> = []
    private var insertedRun: [UInt64] = []
    package var deleted: Set<UInt64> = []
    /// Rows that existed before the commit and still exist, with the columns that changed; an
    /// empty set means the row was deleted and inserted again, so every column may differ.
    package var modified: [UInt64: Set<Int>] = [:]

    package init() {}

    package var isEmpty: Bool { insertedSet.isEmpty && insertedRun.isEmpty && deleted.isEmpty && modified.isEmpty }

    package static func == (left: TableChangeset, right: TableChangeset) -> Bool {
        left.inserted == right.inserted && left.deleted == right.deleted && left.modified == right.modified
    }

    private func wasInserted(_ key: UInt64) -> Bool {
        if let last = insertedRun.last, key <= last, key >= insertedRun[0] {
            let position = insertedRun.partitionPoint { $0 < key }
            if insertedRun[position] == key { return true }
        }
        return insertedSet.contains(key)
    }

    mutating func recordInsert(_ key: UInt64) {
        if !deleted.isEmpty, deleted.remove(key) != nil {
            // Deleted and inserted again under the same key: to an observer the row was replaced,
            // which an empty column set records.
            modified[key] = []
        } else if insertedSet.isEmpty, insertedRun.last.map({ key > $0 }) ?? true {
            insertedRun.append(key)
        } else {
            insertedSet.insert(key)
        }
    }

    mutating func recordDelete(_ key: UInt64) {
        if wasInserted(key) {
            if insertedSet.remove(key) == nil {
                // Rare (a row inserted and deleted in one transaction): the run becomes a set.
                insertedSet.formUnion(insertedRun)
                insertedRun = []
                insertedSet.remove(key)
            }
            return
        }
        modified[key] = nil
        deleted.insert(key)
    }

    /// Records the deletion of every key of `keys` (a whole table's rows).
    mutating func recordDeletes(_ keys: [UInt64]) {
        guard isInsertedEmpty && modified.isEmpty else {
            for key in keys { recordDelete(key) }
            return
        }
        deleted.reserveCapacity(deleted.count + keys.count)
        for key in keys { deleted.insert(key) }
    }

    private var isInsertedEmpty: Bool { insertedSet.isEmpty && insertedRun.isEmpty }

    mutating func recordModify(_ key: UInt64, columns: some Sequence<Int>) {
        guard !wasInserted(key) else { return }
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
    package var pageBytes: UInt64
}
