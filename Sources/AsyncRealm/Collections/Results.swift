import StorageEngine

/// The objects of one class in a realm, in insertion order. Live: reading it after the realm
/// has changed (a write through this handle, a refresh) shows the change.
public final class Results<Element: Object>: RandomAccessCollection {
    /// The realm the results read (`realm` is the public, optional form).
    let handle: Realm
    let info: ClassInfo
    /// The filter, resolved against the class; nil for every object of the class.
    let query: BoundPredicate?
    /// `SORT`, `DISTINCT` and `LIMIT` steps, applied in order after the filter.
    let steps: [BoundStep]
    /// The objects the results start from, in order, when they are not the whole class: the
    /// elements of a list or the linking objects of an object. Read again when the realm changes.
    let base: ResultsBase?
    private var cachedKeys: [UInt64] = []
    private var cachedStamp = -1

    /// Makes `keys` the results' keys at the realm's current version, without evaluating the
    /// query (a change stream that knows they cannot have changed).
    func adopt(_ keys: [UInt64]) {
        cachedKeys = keys
        cachedStamp = handle.stamp
    }

    init(realm: Realm, info: ClassInfo, query: BoundPredicate? = nil, steps: [BoundStep] = [], base: ResultsBase? = nil) {
        self.handle = realm
        self.info = info
        self.query = query
        self.steps = steps
        self.base = base
    }

    /// The keys of the objects, reread when the realm has changed since the last read.
    var keys: [UInt64] {
        handle.checkThread()
        if cachedStamp != handle.stamp {
            cachedKeys = evaluateKeys()
            cachedStamp = handle.stamp
        }
        return cachedKeys
    }

    private func evaluateKeys() -> [UInt64] {
        guard let table = handle.readTable(info) else { return [] }
        let planner = QueryPlanner(realm: handle, info: info)
        let keys: [UInt64]
        if let base {
            let baseKeys = base.keys(in: handle)
            keys = query.map { planner.keys(among: baseKeys, matching: $0, in: table) } ?? baseKeys
        } else {
            keys = query.map { planner.keys(matching: $0, in: table) } ?? ((try? table.keys()) ?? [])
        }
        return steps.isEmpty ? keys : planner.apply(steps, to: keys)
    }

    /// Whether these are all the objects of the class, unfiltered.
    var isWholeClass: Bool { query == nil && steps.isEmpty && base == nil }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The number of objects: the table's row count when unfiltered (no keys are read).
    public var count: Int {
        handle.checkThread()
        guard query == nil && steps.isEmpty && base == nil else { return keys.count }
        return handle.readTable(info)?.count ?? 0
    }

    // MARK: Filtering

    /// The objects that match `predicateFormat` (see `Docs/Queries.md`), with `arguments` for
    /// its placeholders:
    ///
    ///     handle.objects(Dog.self).filter("age > %@ AND name BEGINSWITH[c] %@", 3, "r")
    ///
    /// - Important: Invalid text, an unknown property or a type mismatch stops with the message
    ///   `filter(_ predicate: RealmPredicate)` would throw; use that form to handle them.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        do {
            return try filter(RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The objects that match `predicate`.
    ///
    /// - Throws: `RealmError` with code `invalidQuery` when the predicate names a property the
    ///   class does not have or compares values that do not compare, with the position.
    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> {
        handle.checkThread()
        let binder = QueryBinder(schemas: handle.objectSchemas)
        let bound = try binder.bind(predicate.node, to: info.schema)
        return try filter(bound: bound, steps: try binder.bind(predicate.modifiers, to: info.schema))
    }

    /// These results narrowed by `bound`, followed by `newSteps`.
    func filter(bound: BoundPredicate, steps newSteps: [BoundStep] = []) throws -> Results<Element> {
        // A filter commutes with sorting, so it joins the predicate; after DISTINCT or LIMIT it
        // would have to filter what they produced, which is not done yet.
        guard steps.allSatisfy({ if case .sort = $0 { true } else { false } }) else {
            throw RealmError(code: .invalidQuery, message: "filtering results that are distinct or limited is not supported yet; filter first")
        }
        return Results(realm: handle, info: info, query: query.map { .and($0, bound) } ?? bound, steps: steps + newSteps, base: base)
    }

    /// How the objects are found: which index is used, or that the class's table is scanned.
    public var queryPlan: String {
        handle.checkThread()
        if base != nil {
            return "the objects of a list or linking objects, in their order\(query == nil ? "" : ", checking each")"
        }
        guard let query else { return "all objects of '\(info.schema.className)' in key order" }
        return QueryPlanner(realm: handle, info: info).describe(query)
    }

    public subscript(position: Int) -> Element {
        handle.accessor(of: Element.self, key: keys[position], info: info)
    }

    /// Iterates in key order, reading rows a batch at a time in one pass over the table instead
    /// of looking each object up: every accessor starts with its row already decoded.
    public func makeIterator() -> Iterator {
        handle.checkThread()
        return Iterator(results: self)
    }

    /// A filtered collection iterates its matching keys; the unfiltered one scans the table.
    private var isFiltered: Bool { query != nil || !steps.isEmpty || base != nil }

    public struct Iterator: IteratorProtocol {
        private let results: Results
        private var batch: [Element] = []
        private var position = 0
        private var nextKey: UInt64 = 0
        private var exhausted = false
        private var rowBuffer: RowBuffer?
        private static var batchSize: Int { 256 }
        /// A guess at an encoded row's size, to reserve a batch's buffer once in the usual case.
        private static var rowBytesEstimate: Int { 48 }

        private var filteredPosition = 0

        init(results: Results) {
            self.results = results
        }

        public mutating func next() -> Element? {
            if position == batch.count {
                guard !exhausted else { return nil }
                if results.isFiltered { refillFromKeys() } else { refill() }
                guard !batch.isEmpty else { return nil }
            }
            position += 1
            return batch[position - 1]
        }

        /// The next batch of a filtered, sorted or list-based collection: its keys in order, their
        /// rows read into one buffer the batch's accessors share.
        private mutating func refillFromKeys() {
            batch.removeAll(keepingCapacity: true)
            position = 0
            let realm = results.handle
            let keys = results.keys
            let end = Swift.min(filteredPosition + Self.batchSize, keys.count)
            guard filteredPosition < end, let table = realm.readTable(results.info) else {
                exhausted = true
                return
            }
            // Every row first, then the accessors: appending may move the buffer's bytes.
            let buffer = reusableBuffer()
            let ranges = keys[filteredPosition..<end].map { key in (try? table.withRow(key, buffer.append)) ?? nil }
            for (key, range) in zip(keys[filteredPosition..<end], ranges) {
                if let range {
                    batch.append(realm.accessor(of: Element.self, key: key, row: (buffer, range), info: results.info))
                } else {
                    batch.append(realm.accessor(of: Element.self, key: key, info: results.info))
                }
            }
            filteredPosition = end
            if end == keys.count { exhausted = true }
        }

        /// The buffer for the next batch's rows: the last one, emptied, if no accessor of the
        /// last batch is still in use, which saves allocating it again for every batch.
        private mutating func reusableBuffer() -> RowBuffer {
            if rowBuffer != nil, isKnownUniquelyReferenced(&rowBuffer!) {
                rowBuffer!.removeAll()
                return rowBuffer!
            }
            let buffer = RowBuffer(tableName: results.info.schema.className, capacity: Self.batchSize * Self.rowBytesEstimate)
            rowBuffer = buffer
            return buffer
        }

        private mutating func refill() {
            batch.removeAll(keepingCapacity: true)
            position = 0
            let realm = results.handle
            guard let table = realm.readTable(results.info) else {
                exhausted = true
                return
            }
            // The batch's rows, decoded into one buffer its accessors share.
            let buffer = reusableBuffer()
            var rows: [(key: UInt64, range: Range<Int>)] = []
            rows.reserveCapacity(Self.batchSize)
            try? table.scan(nextKey...UInt64.max) { key, row in
                rows.append((key, buffer.append(row)))
                return rows.count < Self.batchSize
            }
            if rows.count < Self.batchSize { exhausted = true }
            for (key, range) in rows {
                batch.append(realm.accessor(of: Element.self, key: key, row: (buffer, range), info: results.info))
            }
            if let last = rows.last?.key { nextKey = last &+ 1 }
            if nextKey == 0 { exhausted = true }
        }
    }
}
