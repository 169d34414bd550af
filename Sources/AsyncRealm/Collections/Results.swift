import StorageEngine

/// The objects of one class in a realm, in insertion order. Live: reading it after the realm
/// has changed (a write through this handle, a refresh) shows the change.
public final class Results<Element: Object>: RandomAccessCollection {
    /// The realm the results read (`realm` is the public, optional form).
    let handle: Realm
    /// The class's info, as `unretainedInfo` keeps it.
    var info: ClassInfo { unretainedInfo.takeUnretainedValue() }
    /// Not counted, as an object's: `handle`, which the results keep alive, keeps every class
    /// info it made for as long as it lives, so that a count of a whole class counts only the
    /// realm. Read it borrowed (`_withUnsafeGuaranteedRef`) where a reference counted per call
    /// would show: `info` hands out a counted one.
    let unretainedInfo: Unmanaged<ClassInfo>
    /// The filter, resolved against the class; nil for every object of the class.
    let query: BoundPredicate?
    /// `SORT`, `DISTINCT` and `LIMIT` steps, applied in order after the filter.
    let steps: [BoundStep]
    /// The objects the results start from, in order, when they are not the whole class: the
    /// elements of a list or the linking objects of an object. Read again when the realm changes.
    let base: ResultsBase?
    private var cachedKeys: [UInt64] = []
    /// The rows a filter or a sort read while evaluating `cachedKeys`, in their order, if the
    /// evaluation kept them.
    private var cachedRows: KeptRows?
    private var cachedStamp = -1

    /// Makes `keys` the results' keys at the realm's current version, without evaluating the
    /// query (a change stream that knows they cannot have changed).
    func adopt(_ keys: [UInt64]) {
        cachedKeys = keys
        cachedRows = nil
        cachedStamp = handle.stamp
    }

    /// The realm's `invalidations` when the results were made: after a later `invalidate()`
    /// they are empty, as in Realm.
    let invalidations: Int

    /// The class's table as the realm reads it now; nil (no objects) after the realm was
    /// invalidated since these results were made.
    var readableTable: (any TableReading)? {
        handle.invalidations == invalidations ? unretainedInfo._withUnsafeGuaranteedRef { handle.readTable($0) } : nil
    }

    /// Whether the realm was invalidated (`Realm.invalidate()`) since these results were made:
    /// they are empty from then on; ask the realm for them again.
    public var isInvalidated: Bool {
        handle.checkThread()
        return handle.invalidations != invalidations
    }

    /// Every object of `type` in `realm` (`Realm.objects(_:)`).
    @usableFromInline
    convenience init(everyObjectOf type: Element.Type, in realm: Realm) {
        realm.checkThread()
        self.init(realm: realm, unretainedInfo: realm.unretainedClassInfoOrStop(for: type))
    }

    /// Results of `info`'s class in `realm`; `invalidations` is that of the results these are
    /// made from (a filter, sort or distinct of results the realm invalidated is empty too).
    /// `info` must be one of `realm`'s own class infos (`classInfoOrStop`, `dynamicClassInfo`),
    /// which the realm keeps: the results do not count it.
    convenience init(realm: Realm, info: ClassInfo, query: BoundPredicate? = nil, steps: [BoundStep] = [], base: ResultsBase? = nil, invalidations: Int? = nil) {
        self.init(realm: realm, unretainedInfo: .passUnretained(info), query: query, steps: steps, base: base, invalidations: invalidations)
    }

    /// Results of the class whose info `realm` keeps (`unretainedInfo`, which the results do not
    /// count).
    init(realm: Realm, unretainedInfo: Unmanaged<ClassInfo>, query: BoundPredicate? = nil, steps: [BoundStep] = [], base: ResultsBase? = nil, invalidations: Int? = nil) {
        self.handle = realm
        self.invalidations = invalidations ?? realm.invalidations
        self.unretainedInfo = unretainedInfo
        self.query = query
        self.steps = steps
        self.base = base
    }

    /// The keys of the objects, reread when the realm has changed since the last read.
    var keys: [UInt64] {
        evaluated(keepingRows: false).keys
    }

    /// The keys, and the rows kept in their order (see `KeptRows`), both as of the
    /// realm's current version: what iterating reads.
    var keysAndKeptRows: (keys: [UInt64], rows: KeptRows?) {
        evaluated(keepingRows: true)
    }

    /// The keys and kept rows as `keysAndKeptRows` gives them, for an iteration that holds the
    /// only reference to these results (`filter(...)` iterated at once): nobody can read them
    /// again, so they are evaluated without being cached, or taken out of the cache, rather
    /// than copied (each copy counted a reference to the keys, the rows and their buffer, and
    /// freeing the results let go of them again).
    fileprivate func takeKeysAndKeptRows() -> (keys: [UInt64], rows: KeptRows?) {
        handle.checkThread()
        guard cachedStamp == handle.stamp else { return evaluateKeys(keepingRows: true) }
        cachedStamp = -1
        var keys: [UInt64] = []
        var rows: KeptRows?
        swap(&keys, &cachedKeys)
        swap(&rows, &cachedRows)
        return (keys, rows)
    }

    /// The keys and kept rows, evaluated if the realm has changed since the last evaluation,
    /// keeping the rows if `keepingRows` (a count or an index does not need them; iterating,
    /// which reads them all, does). Keys evaluated without rows are not evaluated again for
    /// them: iterating looks their rows up.
    private func evaluated(keepingRows: Bool) -> (keys: [UInt64], rows: KeptRows?) {
        handle.checkThread()
        if cachedStamp != handle.stamp {
            (cachedKeys, cachedRows) = evaluateKeys(keepingRows: keepingRows)
            cachedStamp = handle.stamp
        }
        return (cachedKeys, cachedRows)
    }

    private func evaluateKeys(keepingRows: Bool) -> ([UInt64], KeptRows?) {
        guard let table = readableTable else { return ([], nil) }
        let planner = QueryPlanner(realm: handle, info: info)
        var keys: [UInt64]
        var rows: KeptRows?
        if let base {
            let baseKeys = base.keys(in: handle)
            keys = query.map { planner.keys(among: baseKeys, matching: $0, in: table) } ?? baseKeys
        } else if let query {
            (keys, rows) = planner.keys(matching: query, in: table, keepingRows: keepingRows)
        } else {
            keys = readOrStop { try table.keys() }
        }
        return steps.isEmpty ? (keys, rows) : planner.apply(steps, to: keys, rows: rows, keepingRows: keepingRows)
    }

    /// Whether these are all the objects of the class, unfiltered.
    var isWholeClass: Bool { query == nil && steps.isEmpty && base == nil }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The number of objects: the table's row count when unfiltered (no keys are read), and
    /// for a filter not evaluated yet that the stored columns decide, a count of the rows that
    /// pass (no keys are collected).
    public var count: Int {
        handle.checkThread()
        if query == nil && steps.isEmpty && base == nil {
            guard handle.invalidations == invalidations else { return 0 }
            return unretainedInfo._withUnsafeGuaranteedRef { handle.rowCount($0) }
        }
        if cachedStamp != handle.stamp, let counted = countedOnColumns() { return counted }
        return keys.count
    }

    /// The number of objects of a filter of the whole class that the engine can test on its
    /// packed columns (`QueryEvaluator.columnFilter`) and no index answers: sorting changes no
    /// count, distinct and limits do.
    private func countedOnColumns() -> Int? {
        guard base == nil, let query, let table = readableTable,
              steps.allSatisfy({ if case .sort = $0 { true } else { false } }),
              QueryPlanner(realm: handle, info: info).indexLookup(for: query, in: table) == nil,
              let filter = QueryEvaluator.columnFilter(query) else { return nil }
        return readOrStop { try table.count(where: filter) }
    }

    // MARK: Filtering

    /// The objects that match `predicateFormat` (see `Docs/Queries.md`), with `arguments` for
    /// its placeholders:
    ///
    ///     handle.objects(Dog.self).filter("age > %@ AND name BEGINSWITH[c] %@", 3, "r")
    ///
    /// - Important: Invalid text, an unknown property or a type mismatch stops with the message
    ///   `filter(_ predicate: RealmPredicate)` would throw; use that form to handle them.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate, with `%@` or `$0`, `$1`... for arguments.
    ///   - arguments: The values that replace the placeholders, in order.
    /// - Returns: Live results.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        do {
            return try filter(predicateFormat, values: try RealmPredicate.values(of: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The objects that match `predicateFormat` with `values` for its placeholders. The string
    /// is bound to the class once per handle (see `BoundTemplate`); each call checks its values.
    func filter(_ predicateFormat: String, values: QueryArguments) throws -> Results<Element> {
        handle.checkThread()
        let binder = QueryBinder(schemas: handle.objectSchemas)
        if let template = info.filterTemplates.template(for: predicateFormat, argumentCount: values.count, schema: info.schema, binder: binder) {
            return try filter(bound: try template.predicate(with: values, binder: binder), steps: template.steps)
        }
        return try filter(RealmPredicate(predicateFormat, values: values.array))
    }

    /// The objects that match `predicate`.
    ///
    /// - Throws: `RealmError` with code `invalidQuery` when the predicate names a property the
    ///   class does not have or compares values that do not compare, with the position.
    ///
    /// - Parameter predicate: A parsed predicate.
    /// - Returns: Live results.
    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> {
        handle.checkThread()
        let binder = QueryBinder(schemas: handle.objectSchemas)
        let bound = try binder.bind(predicate.node, to: info.schema)
        return try filter(bound: bound, steps: try binder.bind(predicate.modifiers, to: info.schema))
    }

    /// These results narrowed by `bound`, followed by `newSteps`.
    func filter(bound: consuming BoundPredicate, steps newSteps: consuming [BoundStep] = []) throws -> Results<Element> {
        // A filter commutes with sorting, so it joins the predicate; after DISTINCT or LIMIT it
        // would have to filter what they produced, which is not done yet.
        guard steps.allSatisfy({ if case .sort = $0 { true } else { false } }) else {
            throw RealmError(code: .invalidQuery, message: "filtering results that are distinct or limited is not supported yet; filter first")
        }
        // Taken consumed, and moved into the new results: a query run in a loop made them for
        // this call, and counting them again here was two references per call.
        let narrowed: BoundPredicate = if let query { .both(query, bound) } else { bound }
        let allSteps = steps.isEmpty ? newSteps : steps + newSteps
        return Results(realm: handle, unretainedInfo: unretainedInfo, query: narrowed, steps: allSteps, base: base, invalidations: invalidations)
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
        let (keys, kept) = evaluated(keepingRows: false)
        require(position >= 0 && position < keys.count, "index \(position) is out of bounds for results of \(keys.count) '\(info.schema.className)' objects")
        if let kept, kept.ranges.count == keys.count {
            // Read by index after an iteration kept the rows: each object starts from its row.
            return handle.accessor(of: Element.self, key: keys[position], row: kept.ranges[position], of: kept.buffer, info: info)
        }
        return handle.accessor(of: Element.self, key: keys[position], info: info)
    }

    /// The transformed objects, in order, read through the iterator. `Collection.map` counts and
    /// then subscripts each position, and an object made by index looks its row up when first
    /// read; the iterator reads rows in batches, or from the rows evaluating kept.
    ///
    /// - Parameter transform: Called with each object in turn.
    /// - Returns: The transformed values, in order.
    /// - Throws: What `transform` throws.
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try transform(element)) }
        return mapped
    }

    /// Iterates in key order, reading rows a batch at a time in one pass over the table instead
    /// of looking each object up: every accessor starts with its row already decoded.
    ///
    /// - Returns: An iterator over the objects the results hold when it is made.
    public func makeIterator() -> Iterator {
        handle.checkThread()
        return Iterator(results: self)
    }

    /// A filtered collection iterates its matching keys; the unfiltered one scans the table.
    private var isFiltered: Bool { query != nil || !steps.isEmpty || base != nil }

    public struct Iterator: IteratorProtocol {
        private var results: Results
        /// The realm and class of `results`, which keeps them alive, borrowed in `next()`.
        @usableFromInline let borrowed: BorrowedClass
        /// The current batch: keys, and where each one's row is in `buffer` (nil if it has none
        /// any more). An accessor is made only when `next()` reaches its key, so that an object
        /// the caller drops is freed before the next is made and its memory is reused at once.
        @usableFromInline var keys: [UInt64] = []
        private var rows: [Range<Int>?] = []
        /// The rows evaluating kept for every key, when the batch is all of them (in place of
        /// `rows`, which would be a copy).
        private var keptRows: [Range<Int>]?
        /// The leaf a scan of the table is reading, whose keys are `keys` and whose bytes
        /// `buffer` holds (in place of `rows`: each row's place is the leaf's).
        @usableFromInline var scannedLeaf: Leaf?
        @usableFromInline var buffer: RowBuffer?
        @usableFromInline var position = 0
        private var nextKey: UInt64 = 0
        private var exhausted = false
        private var filteredPosition = 0
        /// The collection's keys when the iteration started: a write inside the loop may change
        /// which objects match and their order, but the loop goes on through the objects it
        /// started with (as RealmSwift's enumeration of a snapshot does), reading each one's
        /// current values.
        private var iterationKeys: [UInt64]?
        /// The realm's stamp when the batch's rows were read.
        @usableFromInline var batchStamp = -1
        /// The last accessor made, kept to be made the next row's accessor when the caller has
        /// let go of it; empty when the class's accessors cannot be reused.
        @usableFromInline var lastAccessor = ReusableAccessor()
        /// Keys per batch of a filtered, sorted or list-based collection: large enough that a
        /// batch's keys share the leaves they are looked up in. (A scan of the table reads a
        /// leaf per batch.)
        private static var keyBatchSize: Int { 4096 }
        /// A guess at an encoded row's size, to reserve a batch's buffer once in the usual case.
        private static var rowBytesEstimate: Int { 48 }

        init(results: Results) {
            self.results = results
            borrowed = BorrowedClass(realm: results.handle, info: results.info)
        }

        /// Advances to the next object.
        ///
        /// Inlined into the caller's loop, and so specialized for `Element` there, is the usual
        /// step of a scan of the table (`nextInScannedLeaf`); anything else is a call
        /// (`nextElement`). Called unspecialized, every step of the loop called this through
        /// the runtime's generic metadata, and two calls inside it.
        ///
        /// - Returns: The next object, or nil once every object was returned.
        @inlinable
        public mutating func next() -> Element? {
            if let object = nextInScannedLeaf() { return unsafeDowncast(object, to: Element.self) }
            return nextElement()
        }

        /// The next row of the leaf a scan of the table is reading, given to the accessor the
        /// caller let go of (when its reference count says so at once) in a realm that has not
        /// changed since the leaf was read; nil when any of that does not hold.
        @inlinable @inline(__always)
        mutating func nextInScannedLeaf() -> Object? {
            guard position < keys.count, scannedLeaf != nil, buffer != nil, let object = lastAccessor.availableAtOnce(),
                  let range = scannedLeaf.unsafelyUnwrapped.inlineValueRange(at: position) else { return nil }
            return borrowed.use { realm, info in
                guard realm.stamp == batchStamp else { return nil }
                let (key, stamp) = (keys[position], batchStamp)
                Unmanaged.passUnretained(buffer.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
                    object._reuse(key: key, info: info, row: range, of: $0, stamp: stamp)
                }
                position += 1
                return object
            }
        }

        /// `next()` in general: the next batch when this one is done, an accessor made or
        /// reused, a row read again after the realm changed.
        @usableFromInline
        mutating func nextElement() -> Element? {
            if position == keys.count {
                guard !exhausted else { return finished() }
                if results.isFiltered { refillFromKeys() } else { refill() }
                guard !keys.isEmpty else { return finished() }
            }
            let index = position
            position += 1
            let row = rowRange(at: index)
            return borrowed.use { realm, info in
                // Rows read before the realm changed (a write inside the loop) are read again.
                if let range = row, buffer != nil, realm.stamp == batchStamp {
                    // (Typed `Object` and unwrapped in place: the generic forms called the
                    // runtime and counted references, per object.)
                    if let object = lastAccessor.available() {
                        let (key, stamp) = (keys[index], batchStamp)
                        Unmanaged.passUnretained(buffer.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
                            object._reuse(key: key, info: info, row: range, of: $0, stamp: stamp)
                        }
                        return unsafeDowncast(object, to: Element.self)
                    }
                    guard info.reusesAccessors(of: Element.self) else {
                        return realm.accessor(of: Element.self, key: keys[index], row: range, of: buffer.unsafelyUnwrapped, info: info)
                    }
                    let object: Object
                    if let spare = info.spareAccessor {
                        info.spareAccessor = nil
                        spare._reuse(key: keys[index], info: info, row: range, of: buffer.unsafelyUnwrapped, stamp: batchStamp)
                        object = spare
                    } else {
                        object = realm.accessor(of: Element.self, key: keys[index], row: range, of: buffer.unsafelyUnwrapped, info: info)
                    }
                    lastAccessor.keep(object)
                    return unsafeDowncast(object, to: Element.self)
                }
                return realm.accessor(of: Element.self, key: keys[index], info: info)
            }
        }

        /// Where the row of `keys[index]` is in `buffer`; nil if it has none there.
        @inline(__always)
        private func rowRange(at index: Int) -> Range<Int>? {
            if let scannedLeaf { return scannedLeaf.inlineValueRange(at: index) }
            return keptRows?[index] ?? rows[index]
        }

        /// The end of the iteration: the last accessor, if nobody else holds it, is left to the
        /// class's next iteration (`ClassInfo.spareAccessor`), without its row.
        private mutating func finished() -> Element? {
            if let object = lastAccessor.available() {
                object.__rowBuffer = nil
                borrowed.use { _, info in info.spareAccessor = object }
                lastAccessor.forget()
            }
            return nil
        }

        /// The buffer for the next batch's rows: the last one, emptied, if no accessor of the
        /// last batch is still in use, which saves allocating it again for every batch.
        private mutating func reusableBuffer(rows count: Int) -> RowBuffer {
            // A kept accessor no one else holds lets go of the last batch's rows.
            lastAccessor.available()?.__rowBuffer = nil
            if buffer != nil, isKnownUniquelyReferenced(&buffer!) {
                buffer!.removeAll()
                return buffer!
            }
            let fresh = RowBuffer.make(realm: results.handle, tableName: results.info.schema.className, capacity: count * Self.rowBytesEstimate)
            buffer = fresh
            return fresh
        }

        /// The next batch of a filtered, sorted or list-based collection: its keys in order,
        /// their rows looked up together (in key order, sharing the descent to each leaf) into
        /// one buffer the batch's accessors share.
        private mutating func refillFromKeys() {
            keptRows = nil
            scannedLeaf = nil
            keys.removeAll(keepingCapacity: true)
            rows.removeAll(keepingCapacity: true)
            position = 0
            let realm = results.handle
            batchStamp = realm.stamp
            let all: [UInt64]
            if let iterationKeys {
                all = iterationKeys
            } else {
                let (evaluated, kept) = isKnownUniquelyReferenced(&results) ? results.takeKeysAndKeptRows() : results.keysAndKeptRows
                if let kept, kept.ranges.count == evaluated.count {
                    // The rows evaluating read, already in this order: one batch of everything,
                    // the last (so the keys are not kept again for the next).
                    keys = evaluated
                    keptRows = kept.ranges
                    buffer = kept.buffer
                    filteredPosition = evaluated.count
                    exhausted = true
                    return
                }
                iterationKeys = evaluated
                all = evaluated
            }
            let end = Swift.min(filteredPosition + Self.keyBatchSize, all.count)
            guard filteredPosition < end, let table = results.readableTable else {
                exhausted = true
                return
            }
            let batch = Array(all[filteredPosition..<end])
            var found = [Range<Int>?](repeating: nil, count: batch.count)
            let buffer = reusableBuffer(rows: batch.count)
            // Positions in key order: a sorted collection's keys are not, a filtered one's are.
            var order = Array(batch.indices)
            if zip(batch, batch.dropFirst()).contains(where: { $0 > $1 }) { order.sort { batch[$0] < batch[$1] } }
            let sortedKeys = order.map { batch[$0] }
            readOrStop {
                try sortedKeys.withUnsafeBufferPointer { sorted in
                    try table.withRows(sortedKeys: sorted) { index, row in
                        found[order[index]] = buffer.append(row)
                    }
                }
            }
            keys = batch
            rows = found
            filteredPosition = end
            if end == all.count { exhausted = true }
        }

        /// The next batch of the whole table, in one pass over it: the next leaf's rows, read
        /// in place (`RowBuffer.borrow(_:)`).
        private mutating func refill() {
            let realm = results.handle
            batchStamp = realm.stamp
            scannedLeaf = nil
            guard let table = results.readableTable,
                  let (leaf, start) = readOrStop({ try table.rowLeaf(from: nextKey) }) else {
                keys.removeAll(keepingCapacity: true)
                exhausted = true
                return
            }
            reusableBuffer(rows: 0).borrow(leaf.bytes)
            keys = leaf.keys
            position = start
            scannedLeaf = leaf
            nextKey = leaf.keys[leaf.keys.count - 1] &+ 1
            if nextKey == 0 { exhausted = true }
        }
    }
}
