extension TableChangeset {
    /// What this commit and then `later` did together: a row inserted and deleted again is not
    /// there at all, a row deleted and inserted again is replaced (modified in every column),
    /// and modified columns accumulate.
    package func followed(by later: TableChangeset) -> TableChangeset {
        var merged = self
        for key in later.insertedKeys.set {
            if merged.deletedKeys.remove(key) {
                merged.modified[key] = []
            } else {
                merged.insertedKeys.insert(key)
            }
        }
        for (key, columns) in later.modified where !merged.insertedKeys.contains(key) {
            if let existing = merged.modified[key] {
                // An empty set means every column; it absorbs whatever else changed.
                merged.modified[key] = existing.isEmpty || columns.isEmpty ? [] : existing.union(columns)
            } else {
                merged.modified[key] = columns
            }
        }
        for key in later.deletedKeys.set {
            if merged.insertedKeys.remove(key) { continue }
            merged.modified[key] = nil
            merged.deletedKeys.insert(key)
        }
        return merged
    }
}

extension Changeset {
    /// What this commit and then `later` did together (see `TableChangeset.followed(by:)`).
    package func followed(by later: Changeset) -> Changeset {
        var merged = self
        for (name, changes) in later.tables {
            merged.tables[name] = merged.tables[name].map { $0.followed(by: changes) } ?? changes
        }
        return merged
    }
}

extension Database {
    /// What changed from `old` to `new` (`new` not older): the coalesced changesets this process
    /// recorded for the commits in between when it still has all of them, else computed from the
    /// two versions' trees (commits of other processes, or ones too old to be kept).
    package func changes(from old: Snapshot, to new: Snapshot) throws -> Changeset {
        guard new.version > old.version else { return Changeset() }
        let commits = shared.commits(after: old.version).filter { $0.version <= new.version }
        let contiguous = commits.count == Int(new.version - old.version)
            && zip(commits, (old.version + 1)...new.version).allSatisfy { $0.version == $1 }
        guard contiguous else { return try Changeset.between(old, new) }
        return commits.dropFirst().reduce(commits[0].changeset) { $0.followed(by: $1.changeset) }
    }
}
