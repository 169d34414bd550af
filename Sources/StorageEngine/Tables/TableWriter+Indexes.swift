/// Identifies a posting list: the index's column and the indexed value.
struct PostingID: Hashable {
    let column: Int
    let value: RowValue
}

/// A posting tree being changed, and how many row keys it holds.
struct DirtyPosting {
    let tree: MutableTree
    var count: UInt64

    mutating func insert(_ key: UInt64) throws {
        guard try !tree.contains(key) else { return }
        try tree.put(key, [])
        count += 1
    }

    mutating func remove(_ key: UInt64) throws {
        if try tree.delete(key) { count -= 1 }
    }
}

extension TableWriter {
    /// Adds an index on `column`, built from the existing rows.
    ///
    /// - Throws: `duplicateKey` if `unique` and two rows share a value; nothing is changed then.
    package func addIndex(on column: Int, unique: Bool) throws {
        guard indexTrees[column] == nil else { return }
        redo.stop()
        indexTrees[column] = (MutableTree(root: .null, space: space), unique)
        var failure: StorageError?
        try scan { key, row in
            let value = try row.column(column)
            // The index built so far answers whether a row before this one holds the value:
            // no set of every value on the side.
            if unique, let other = try keyHolding(value, inIndexOn: column, other: key) {
                failure = StorageError(.duplicateKey, "cannot add a unique index on column \(column) of '\(name)': rows \(other) and \(key) both hold \(value)")
                return false
            }
            try addToIndex(column: column, key: key, value: value)
            return true
        }
        if let failure {
            try clearIndex(column: column)
            indexTrees[column] = nil
            throw failure
        }
        isModified = true
    }

    /// The columns that have an index, in no particular order.
    package var indexedColumns: [Int] { indexTrees.keys }

    /// Removes the index on `column`, if there is one, and frees its pages.
    package func removeIndex(on column: Int) throws {
        guard indexTrees[column] != nil else { return }
        redo.stop()
        try clearIndex(column: column)
        indexTrees[column] = nil
        isModified = true
    }

    package func postingKeys(_ list: PostingList, column: Int, value: RowValue) throws -> [UInt64] {
        if let dirty = postings[PostingID(column: column, value: value)] {
            return try dirty.tree.allKeys(reserving: Int(dirty.count))
        }
        return try list.keys(store: space.store)
    }

    /// Adds row `key`, holding `values`, to every index, after checking the unique ones.
    ///
    /// When every value falls after its index's last key (an increasing primary key, the usual
    /// insert), there is nothing to check and each bucket is appended, in one pass.
    func addToIndexes(_ values: [RowValue], key: UInt64) throws {
        if let only = indexTrees.onlyIndex {
            // One index, the usual table's (its primary key): its key computed once, the tree
            // borrowed. Through `forEachTree`, the array of indexes would be retained around each
            // call of the loop's body.
            let value = only.column < values.count ? values[only.column] : .null
            let indexKey = IndexKey.of(value)
            let appended = try only.tree._withUnsafeGuaranteedRef { tree in
                guard try tree.isAfterLastKey(indexKey) else { return false }
                try appendBucket(to: tree, indexKey: indexKey, value: value, key: key)
                return true
            }
            if appended { return }
        } else {
            // The trees are borrowed (`forEachTree`): counting references to them twice per
            // index and row was a seventh of an insert.
            var appending = true
            try indexTrees.forEachTree { column, tree in
                appending = try tree.isAfterLastKey(IndexKey.of(column < values.count ? values[column] : .null))
                return appending
            }
            if appending {
                try indexTrees.forEachTree { column, tree in
                    let value = column < values.count ? values[column] : .null
                    try appendBucket(to: tree, indexKey: IndexKey.of(value), value: value, key: key)
                    return true
                }
                return
            }
        }
        try checkUnique(values, excluding: key)
        for (column, _) in indexTrees {
            try addToIndex(column: column, key: key, value: column < values.count ? values[column] : .null)
        }
    }

    func checkUnique(_ values: [RowValue], excluding key: UInt64, columns: [Int]? = nil) throws {
        for (column, index) in indexTrees where index.unique && (columns?.contains(column) ?? true) {
            let value = column < values.count ? values[column] : .null
            if let other = try keyHolding(value, inIndexOn: column, other: key) {
                throw StorageError(
                    .duplicateKey, "table '\(name)' already has \(value) in unique column \(column) (row \(other))",
                    duplicate: StorageError.Duplicate(table: name, column: column, value: value))
            }
        }
    }

    /// A row other than `key` that the index on `column` lists under `value`, if any.
    private func keyHolding(_ value: RowValue, inIndexOn column: Int, other key: UInt64) throws -> UInt64? {
        guard let index = indexTrees[column] else { return nil }
        let indexKey = IndexKey.of(value)
        if try index.tree.isAfterLastKey(indexKey) { return nil }
        let found = try index.tree.withValue(forKey: indexKey) { try IndexBucket.postingList(for: value, in: $0) }
        guard let list = found ?? nil else { return nil }
        return try postingKeys(list, column: column, value: value).first(where: { $0 != key })
    }

    private func bucket(column: Int, indexKey: UInt64) throws -> IndexBucket {
        let tree = indexTrees[column]!.tree
        if try tree.isAfterLastKey(indexKey) { return IndexBucket() }
        return try tree.withValue(forKey: indexKey) { try IndexBucket.decode($0) } ?? IndexBucket()
    }

    private func store(_ bucket: IndexBucket, column: Int, indexKey: UInt64) throws {
        let tree = indexTrees[column]!.tree
        if bucket.isEmpty {
            try tree.delete(indexKey)
        } else {
            try tree.putOrAppend(indexKey, bucket.encoded())
        }
    }

    /// Applies `change` to the posting tree of `id`, taking it into `postings` from its stored
    /// root the first time it changes in this transaction.
    private func changePosting(_ id: PostingID, storedRoot root: PageRef, count: UInt64, _ change: (inout DirtyPosting) throws -> Void) throws {
        var dirty = postings[id] ?? DirtyPosting(tree: MutableTree(root: root, space: space), count: count)
        try change(&dirty)
        postings[id] = dirty
    }

    func addToIndex(column: Int, key: UInt64, value: RowValue) throws {
        let id = PostingID(column: column, value: value)
        if !postings.isEmpty, postings[id] != nil {
            try changePosting(id, storedRoot: .null, count: 0) { try $0.insert(key) }
            return
        }
        let indexKey = IndexKey.of(value)
        let tree = indexTrees[column]!.tree
        if try tree.isAfterLastKey(indexKey) {
            try appendBucket(to: tree, indexKey: indexKey, value: value, key: key)
            return
        }
        var bucket = try bucket(column: column, indexKey: indexKey)
        switch bucket.postingList(for: value) {
        case nil:
            bucket.setPostingList(.inline([key]), for: value)
        case .inline(var keys)?:
            let position = keys.partitionPoint { $0 < key }
            guard position == keys.count || keys[position] != key else { return }
            keys.insert(key, at: position)
            if keys.count > PostingList.inlineLimit {
                // Too many to rewrite on every change: move them to a tree of their own, whose
                // root the bucket records at commit (`finalizeIndexes`).
                let tree = MutableTree(root: .null, space: space)
                for rowKey in keys { try tree.append(rowKey, []) }
                postings[id] = DirtyPosting(tree: tree, count: UInt64(keys.count))
                return
            }
            bucket.setPostingList(.inline(keys), for: value)
        case .tree(let root, let count)?:
            try changePosting(id, storedRoot: root, count: count) { try $0.insert(key) }
            return
        }
        try store(bucket, column: column, indexKey: indexKey)
    }

    /// Appends the bucket of `value`, which falls after every indexed value (an increasing
    /// primary key), holding row `key` alone: along the tree's right edge, without reading or
    /// building a bucket, encoded in place when its value is short.
    private func appendBucket(to tree: MutableTree, indexKey: UInt64, value: RowValue, key: UInt64) throws {
        let appended = try withRoom(RowCodec.maximumEncodedSize(single: value) + 21) { room in
            var writer = UnsafeByteWriter(room)
            guard IndexBucket.encodeSingle(value, key: key, into: &writer) else { return false }
            try tree.append(indexKey, UnsafeRawBufferPointer(rebasing: room[..<writer.count]))
            return true
        }
        if appended { return }
        scratch.bytes.removeAll(keepingCapacity: true)
        IndexBucket.encodeSingle(value, key: key, into: &scratch)
        try scratch.bytes.withUnsafeBytes { try tree.append(indexKey, $0) }
    }

    func removeFromIndex(column: Int, key: UInt64, value: RowValue) throws {
        let id = PostingID(column: column, value: value)
        if !postings.isEmpty, postings[id] != nil {
            try changePosting(id, storedRoot: .null, count: 0) { try $0.remove(key) }
            return
        }
        let indexKey = IndexKey.of(value)
        var bucket = try bucket(column: column, indexKey: indexKey)
        switch bucket.postingList(for: value) {
        case nil:
            return
        case .inline(var keys)?:
            keys.removeAll { $0 == key }
            bucket.setPostingList(keys.isEmpty ? nil : .inline(keys), for: value)
        case .tree(let root, let count)?:
            try changePosting(id, storedRoot: root, count: count) { try $0.remove(key) }
            return
        }
        try store(bucket, column: column, indexKey: indexKey)
    }

    /// Writes the posting trees changed in this transaction and records their roots in their
    /// buckets; a tree that shrank to half the inline limit goes back inline.
    func finalizeIndexes() throws {
        for (id, dirty) in postings {
            let list: PostingList?
            if dirty.count == 0 {
                try dirty.tree.freeAll()
                list = nil
            } else if dirty.count <= UInt64(PostingList.inlineLimit / 2) {
                let keys = try dirty.tree.allKeys(reserving: Int(dirty.count))
                try dirty.tree.freeAll()
                list = .inline(keys)
            } else {
                list = .tree(root: try dirty.tree.flush(), count: dirty.count)
            }
            let indexKey = IndexKey.of(id.value)
            var bucket = try bucket(column: id.column, indexKey: indexKey)
            bucket.setPostingList(list, for: id.value)
            try store(bucket, column: id.column, indexKey: indexKey)
        }
        postings.removeAll()
    }

    /// Frees every page of the index on `column`, posting trees included, leaving it empty.
    func clearIndex(column: Int) throws {
        var dirtyValues: Set<RowValue> = []
        for (id, dirty) in postings where id.column == column {
            // A posting tree being changed owns its pages now, the stored ones it still shares
            // with its old root included; the bucket's old root must not be freed again.
            try dirty.tree.freeAll()
            dirtyValues.insert(id.value)
            postings[id] = nil
        }
        let (tree, unique) = indexTrees[column]!
        // A unique index holds one key per value, inline in its bucket, and so has no posting
        // tree (they start past `PostingList.inlineLimit` keys): its buckets need no reading.
        guard !unique else { return try tree.freeAll() }
        var storedRoots: [PageRef] = []
        try tree.scan { _, bytes in
            try IndexBucket.forEachPostingTree(in: bytes) { encodedValue, root in
                if try dirtyValues.isEmpty || !dirtyValues.contains(RowCodec.decodeColumn(0, of: encodedValue)) {
                    storedRoots.append(root)
                }
            }
            return true
        }
        for root in storedRoots { try MutableTree(root: root, space: space).freeAll() }
        try tree.freeAll()
    }
}
