extension Changeset {
    /// What changed from `old` to `new`, computed from the two versions' trees.
    ///
    /// This is how a process learns what another process's commits did: changesets recorded by
    /// the writer stay in the writer's memory, but both versions are readable anywhere. The
    /// result lists the rows inserted, deleted, and modified with the columns whose values
    /// differ; rows changed and changed back in between do not appear.
    package static func between(_ old: Snapshot, _ new: Snapshot) throws -> Changeset {
        var changeset = Changeset()
        for name in Set(old.catalog.tables.keys).union(new.catalog.tables.keys) {
            let oldRoot = old.catalog.tables[name]?.rows ?? .null
            let newRoot = new.catalog.tables[name]?.rows ?? .null
            guard oldRoot != newRoot else { continue }
            var changes = TableChangeset()
            try TreeDiff.diff(TreeReader(store: old.store, root: oldRoot), TreeReader(store: new.store, root: newRoot)) { key, before, after in
                switch (before, after) {
                case (nil, _?): changes.insertedKeys.insert(key)
                case (_?, nil): changes.deletedKeys.insert(key)
                case (_?, _?):
                    let columns = try changedColumns(key, in: name, old, new)
                    if !columns.isEmpty { changes.modified[key] = columns }
                case (nil, nil): break
                }
            }
            if !changes.isEmpty { changeset.tables[name] = changes }
        }
        return changeset
    }

    private static func changedColumns(_ key: UInt64, in table: String, _ old: Snapshot, _ new: Snapshot) throws -> Set<Int> {
        let before = try old.table(table).row(key) ?? []
        let after = try new.table(table).row(key) ?? []
        var columns = Set<Int>()
        for column in 0..<max(before.count, after.count) {
            let a = column < before.count ? before[column] : .null
            let b = column < after.count ? after[column] : .null
            if a != b { columns.insert(column) }
        }
        return columns
    }
}
