import Foundation
import StorageEngine

/// Chooses how to find the objects a predicate matches: through an index when the predicate
/// (or one side of a top-level AND) is `==` or `IN` on an indexed property, the primary key or
/// a link, or an ordering comparison or `BETWEEN` on an indexed integer or date; otherwise by
/// scanning the table. Either way every candidate is checked against the whole
/// predicate, so the plan changes the cost, never the result.
struct QueryPlanner {
    // Not counted: a planner lives inside one call of the results that made it, which hold the
    // realm, and the realm its class infos. Counting them was two references for every query.
    unowned(unsafe) let realm: Realm
    unowned(unsafe) let info: ClassInfo

    /// An index that narrows the candidates: the column, and the constants to look up (in the
    /// stored form of the column's `type`) or the range of index keys to read (for `<`, `<=`,
    /// `>`, `>=` and `BETWEEN` on integers and dates, whose index keys sort as the values do).
    struct IndexLookup {
        let column: Int
        /// The comparison's constants, as bound; those with no stored form in the column (3.5
        /// for an Int) match nothing and are not looked up.
        private let constants: [QueryScalar]
        private let type: PropertyType
        let range: ClosedRange<UInt64>?
        /// For a lookup of a list's, set's or map's values: its element table, whose index on
        /// the values gives elements, and the candidates are their owners; for `map['key']`,
        /// only the entries under that key.
        private let elements: (any TableReading)?
        private let mapKey: String?
        /// For a lookup of a collection's values: the collection's column in the queried class.
        let collectionColumn: Int?
        /// Whether every candidate matches the comparison the lookup was made for, so that a
        /// predicate that is that comparison alone needs no candidate checked.
        let isExact: Bool

        init(column: Int, constants: [QueryScalar], type: PropertyType, elements: (any TableReading)? = nil, mapKey: String? = nil, collectionColumn: Int? = nil) {
            self.column = column
            self.constants = constants
            self.type = type
            self.elements = elements
            self.mapKey = mapKey
            self.collectionColumn = collectionColumn
            isExact = elements != nil
            range = nil
        }

        init(column: Int, range: ClosedRange<UInt64>) {
            self.column = column
            constants = []
            type = .int
            elements = nil
            mapKey = nil
            collectionColumn = nil
            isExact = false
            self.range = range
        }

        /// The values looked up, in the column's stored form: for `map['key']` through the map's
        /// key-and-value index, each joined with the key (`MapStore.lookupKey`).
        var values: [RowValue] {
            constants.compactMap(value(of:))
        }

        /// The value `constant` is looked up as (see `values`); nil if it has no stored form in
        /// the column. A lookup of one constant asks this, and makes no array of it.
        private func value(of constant: QueryScalar) -> RowValue? {
            guard let stored = QueryPlanner.stored(constant, as: type) else { return nil }
            guard let mapKey, column == MapStore.lookupColumn else { return stored }
            return MapStore.lookupKey(mapKey, stored)
        }

        /// How many lookups it takes, to choose between two: a range counts as many.
        var cost: Int { range == nil ? constants.count : Int.max / 2 }

        /// The candidate keys the index gives, in key order. One value's keys need no set (the
        /// common `==` lookup), and sorting them in place allocates nothing when they are few.
        func candidates(in table: any TableReading) -> [UInt64] {
            if let elements {
                // Element keys in order are owners in order: each owner once.
                var owners: [UInt64] = []
                for key in IndexLookup(column: column, constants: constants, type: type, mapKey: mapKey).candidates(in: elements) {
                    let owner = ListStore.owner(ofKey: key)
                    if owners.last != owner { owners.append(owner) }
                }
                return owners
            }
            if range == nil, constants.count == 1 {
                guard let value = value(of: constants[0]) else { return [] }
                var keys = readOrStop { try table.keys(where: column, equals: value) }
                keys.sort()
                return keys
            }
            var candidates = Set<UInt64>()
            if let range {
                readOrStop {
                    try table.indexEntries(on: column, in: range) { _, keys in
                        candidates.formUnion(keys)
                        return true
                    }
                }
            }
            for value in values {
                candidates.formUnion(readOrStop { try table.keys(where: column, equals: value) })
            }
            return candidates.sorted()
        }
    }

    /// The keys of the objects matching `query`, in key order; with `keepingRows`, the rows of
    /// the matches too, as read to test them (see `KeptRows`).
    ///
    /// Each way of finding them keeps its rows in a collector of its own: one that a closure
    /// kept for later (the integer scan's) is allocated on the heap, which every indexed
    /// lookup paid for when they shared one.
    func keys(matching query: BoundPredicate, in table: any TableReading, keepingRows: Bool = false) -> (keys: [UInt64], rows: KeptRows?) {
        if let lookup = indexLookup(for: query, in: table) {
            return keys(matching: query, among: lookup, in: table, keepingRows: keepingRows)
        }
        if !keepingRows, let filter = QueryEvaluator.columnFilter(query) {
            // Tested a leaf at a time on its packed columns: only the keys are wanted.
            return (readOrStop { try table.keys(where: filter) }, nil)
        }
        if case .comparison(let comparison) = query, case .integer(let column, let test, let nilHolds)? = comparison.rowTest,
           let bounds = test.bounds {
            // One integer column within bounds: the engine tests it inside its scan loop.
            var kept = KeptRows.Collector(realm: realm, info: info, enabled: keepingRows)
            let found = readOrStop { try table.keys(whereInteger: column, in: bounds, nullMatches: nilHolds, keepingRows ? { kept.keep($0) } : nil) }
            return (found, kept.rows(count: found.count))
        }
        return scannedKeys(matching: query, in: table, keepingRows: keepingRows)
    }

    /// The keys of `query`'s matches among the candidates of an index `lookup`, each tested on
    /// its stored row.
    private func keys(matching query: BoundPredicate, among lookup: IndexLookup, in table: any TableReading, keepingRows: Bool) -> (keys: [UInt64], rows: KeptRows?) {
        // A predicate that is the looked-up comparison alone: the candidates are the matches.
        if lookup.isExact, !keepingRows, case .comparison = query { return (lookup.candidates(in: table), nil) }
        var kept = KeptRows.Collector(realm: realm, info: info, enabled: keepingRows)
        // The matches are moved to the front of the candidates, in order: no second array for
        // the few keys of an indexed lookup.
        var keys = lookup.candidates(in: table)
        var matches = 0
        for position in keys.indices {
            let key = keys[position]
            let verdict = readOrStop {
                try table.withRow(key) { row -> Bool? in
                    guard let matched = try QueryEvaluator.matchesOnRow(query, row) else { return nil }
                    if matched { kept.keep(row) }
                    return matched
                }
            } ?? .some(false)
            // A comparison with no row test (the first candidate meets it, or a later one
            // that reaches a part the others did not): the candidates are evaluated as
            // objects instead, from the start.
            guard let verdict else {
                let evaluator = QueryEvaluator(realm: realm)
                let schema = info.schema
                keys = lookup.candidates(in: table).filter { key in
                    guard let row = readOrStop({ try table.row(key) }) else { return false }
                    return evaluator.matches(query, QueryEvaluator.ObjectRow(schema: schema, key: key, row: row))
                }
                return (keys, nil)
            }
            if verdict == true {
                keys[matches] = key
                matches += 1
            }
        }
        keys.removeLast(keys.count - matches)
        return (keys, kept.rows(count: keys.count))
    }

    /// The keys of `query`'s matches found by reading every row of the table.
    private func scannedKeys(matching query: BoundPredicate, in table: any TableReading, keepingRows: Bool) -> (keys: [UInt64], rows: KeptRows?) {
        var kept = KeptRows.Collector(realm: realm, info: info, enabled: keepingRows)
        var keys: [UInt64] = []
        if let matches = QueryEvaluator.compileOnRows(query) {
            // Tested on the stored rows: nothing decoded but what is compared.
            readOrStop {
                try table.scan { key, view in
                    if try matches(view) {
                        keys.append(key)
                        kept.keep(view)
                    }
                    return true
                }
            }
            return (keys, kept.rows(count: keys.count))
        }
        // Decode only the columns the predicate starts from; the others read as nil.
        let columns = Self.columns(of: query).sorted()
        let width = (columns.last ?? -1) + 1
        let schema = info.schema
        var row = [RowValue](repeating: .null, count: width)
        // The evaluator must outlive the closures it compiles, which do not keep it.
        let evaluator = QueryEvaluator(realm: realm)
        let matches = evaluator.compile(query)
        withExtendedLifetime(evaluator) {
            readOrStop {
                try table.scan { key, view in
                    for column in columns { row[column] = try view.column(column) }
                    if matches(QueryEvaluator.ObjectRow(schema: schema, key: key, row: row)) {
                        keys.append(key)
                        kept.keep(view)
                    }
                    return true
                }
            }
        }
        return (keys, kept.rows(count: keys.count))
    }

    /// The columns of the queried class whose values `query` reads (the first hop of each of
    /// its key paths).
    static func columns(of query: BoundPredicate) -> Set<Int> {
        switch query {
        case .constant: return []
        case .not(let inner): return columns(of: inner)
        case .and(let operands), .or(let operands): return operands.reduce(into: []) { $0.formUnion(columns(of: $1)) }
        case .comparison(let comparison): return columns(of: comparison.left).union(columns(of: comparison.right))
        }
    }

    private static func columns(of side: BoundComparison.Side) -> Set<Int> {
        let path: BoundKeyPath
        switch side {
        case .constant: return []
        case .path(let bound, _): path = bound
        case .subqueryCount(let bound, _): path = bound
        }
        switch path.hops.first {
        case .value(let column)?, .mixed(let column, _)?, .link(let column, _)?, .list(let column, _, _)?, .map(let column, _, _, _)?: return [column]
        case .backlinks?, .allBacklinks?, nil: return []
        }
    }

    /// Applies `SORT`, `DISTINCT` and `LIMIT` steps, in order, to `keys`, whose rows are `rows`
    /// if they were kept. Sorting is stable and puts nil first when ascending, as Realm does.
    /// With `keepingRows`, the result's rows come back too: kept by a sort, or carried from
    /// `rows` (see `KeptRows`).
    func apply(_ steps: [BoundStep], to keys: [UInt64], rows: KeptRows? = nil, keepingRows: Bool) -> (keys: [UInt64], rows: KeptRows?) {
        let evaluator = QueryEvaluator(realm: realm)
        var keys = keys
        var rows = rows
        for step in steps {
            switch step {
            case .limit(let count):
                keys = Array(keys.prefix(count))
                rows = rows.map { kept in KeptRows(buffer: kept.buffer, ranges: Array(kept.ranges.prefix(count))) }
            case .sort(let order):
                let (values, read) = sortValues(order.map(\.path), of: keys, evaluator: evaluator, keepingRows: keepingRows, asciiStrings: true)
                let sortKeys = SortKeys(values, ascending: order.map(\.ascending))
                let positions = sortKeys.sortedPositions()
                keys = positions.map { keys[$0] }
                rows = read?.reordered(by: positions)
            case .distinct(let paths):
                let columns = sortValues(paths, of: keys, evaluator: evaluator, keepingRows: false, asciiStrings: false).values.map { column in
                    guard case .scalars(let scalars) = column else { stop("values read without ASCII string columns") }
                    return scalars
                }
                var seen = Set<[DistinctValue]>()
                let positions = keys.indices.filter { position in seen.insert(columns.map { DistinctValue(scalar: $0[position]) }).inserted }
                keys = positions.map { keys[$0] }
                rows = rows.map { kept in KeptRows(buffer: kept.buffer, ranges: positions.map { kept.ranges[$0] }) }
            }
        }
        return (keys, rows)
    }

    /// The values of each of `paths` (one column per path, by position in `keys`). Paths to
    /// columns of the class itself are read by looking the keys up together, in key order,
    /// decoding those columns alone; others follow each object's links. With `asciiStrings`,
    /// a string column whose values turn out all ASCII comes back as their bytes
    /// (`ASCIIStrings`), with no `String` made for each.
    private func sortValues(
        _ paths: [BoundKeyPath], of keys: [UInt64], evaluator: QueryEvaluator, keepingRows: Bool, asciiStrings: Bool
    ) -> (values: [SortKeys.Values], rows: KeptRows?) {
        let columns = paths.compactMap { path -> Int? in
            guard path.hops.count == 1, case .value(let column) = path.hops[0] else { return nil }
            return column
        }
        guard columns.count == paths.count, let table = realm.readTable(info) else {
            return (paths.map { path in .scalars(keys.map { evaluator.value(of: path, key: $0, schema: info.schema) ?? .null }) }, nil)
        }
        // A string column read as bytes while its values are ASCII; one that is not (or holds
        // something else) makes the whole read start again with strings.
        let asBytes = paths.map { asciiStrings && $0.property.type == .string }
        var strings = asBytes.map { $0 ? ASCIIStrings(count: keys.count) : ASCIIStrings(count: 0) }
        var allASCII = true
        // Positions in key order (a list's results may hold a key more than once).
        var order = Array(keys.indices)
        if zip(keys, keys.dropFirst()).contains(where: { $0 > $1 }) { order.sort { keys[$0] < keys[$1] } }
        let sortedKeys = order.map { keys[$0] }
        var values = asBytes.map { $0 ? [] : [QueryScalar](repeating: .null, count: keys.count) }
        var kept = KeptRows.Collector(realm: realm, info: info, enabled: keepingRows, expectedRows: keys.count)
        readOrStop {
            try sortedKeys.withUnsafeBufferPointer { sorted in
                try table.withRows(sortedKeys: sorted) { index, row in
                    for (path, column) in columns.enumerated() {
                        if asBytes[path] {
                            if let utf8 = try row.stringBytes(column) {
                                allASCII = strings[path].set(utf8, at: order[index]) && allASCII
                            } else if try row.column(column) != .null {
                                allASCII = false
                            }
                        } else {
                            values[path][order[index]] = QueryScalar(stored: try row.column(column), type: paths[path].property.type)
                        }
                    }
                    kept.keep(row)
                }
            }
        }
        if !allASCII {
            return sortValues(paths, of: keys, evaluator: evaluator, keepingRows: keepingRows, asciiStrings: false)
        }
        let read = paths.indices.map { path in asBytes[path] ? SortKeys.Values.asciiStrings(strings[path]) : .scalars(values[path]) }
        // Kept in key order; by position in `keys` like the values. (A key without a row,
        // which should not happen, leaves nothing kept.)
        guard let collected = kept.rows(count: keys.count) else { return (read, nil) }
        var byPosition = collected.ranges
        for (index, position) in order.enumerated() { byPosition[position] = collected.ranges[index] }
        return (read, KeptRows(buffer: collected.buffer, ranges: byPosition))
    }

    /// The order of two sort values: nil before everything, then `QueryScalar.order`.
    static func sortOrder(_ a: QueryScalar, _ b: QueryScalar) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return QueryScalar.order(a, b) ?? (a.kindRank < b.kindRank ? -1 : a.kindRank == b.kindRank ? 0 : 1)
        }
    }

    /// The keys of `candidates` (in their order, duplicates kept: a list may hold an object
    /// twice) whose objects match `query`.
    func keys(among candidates: [UInt64], matching query: BoundPredicate, in table: any TableReading) -> [UInt64] {
        let evaluator = QueryEvaluator(realm: realm)
        var verdicts: [UInt64: Bool] = [:]
        return candidates.filter { key in
            if let verdict = verdicts[key] { return verdict }
            let verdict = readOrStop({ try table.row(key) }).map {
                evaluator.matches(query, QueryEvaluator.ObjectRow(schema: info.schema, key: key, row: $0))
            } ?? false
            verdicts[key] = verdict
            return verdict
        }
    }

    /// What `keys(matching:in:)` does for `query`, in words (see `Results.queryPlan`).
    func describe(_ query: BoundPredicate) -> String {
        let className = info.schema.className
        guard let table = realm.readTable(info), let lookup = indexLookup(for: query, in: table) else {
            return "scan of '\(className)', checking each object"
        }
        let count = lookup.values.count
        let what = lookup.range != nil ? "a range" : "\(count) value\(count == 1 ? "" : "s")"
        if let collection = lookup.collectionColumn {
            let name = info.schema.storedProperties[collection].name
            let check = lookup.isExact && { if case .comparison = query { true } else { false } }() ? "each owner a match" : "then checking each candidate"
            return "index on the elements of '\(className).\(name)' (\(what)), \(check)"
        }
        let property = info.schema.storedProperties[lookup.column]
        let kind = property.isPrimary ? "primary key" : "index"
        return "\(kind) on '\(className).\(property.name)' (\(what)), then checking each candidate"
    }

    /// The index lookup that narrows `query`'s candidates, if one applies.
    func indexLookup(for query: BoundPredicate, in table: any TableReading) -> IndexLookup? {
        switch query {
        case .comparison(let comparison):
            return lookup(comparison, in: table)
        case .and(let operands):
            // Any operand narrows the whole: take the one with fewest values to look up. One
            // value (`name == %@`) is as narrow as a lookup gets; the operands after it are
            // not planned.
            var best: IndexLookup?
            for operand in operands {
                guard let lookup = indexLookup(for: operand, in: table) else { continue }
                if lookup.cost <= 1 { return lookup }
                if best == nil || lookup.cost < best!.cost { best = lookup }
            }
            return best
        default:
            return nil
        }
    }

    private func lookup(_ comparison: BoundComparison, in table: any TableReading) -> IndexLookup? {
        if let range = rangeLookup(comparison, in: table) { return range }
        guard !comparison.caseInsensitive, !comparison.diacriticInsensitive, comparison.op == .equal || comparison.op == .in else { return nil }
        // A column of the object itself, worked out when the comparison was bound; matching the
        // sides again would copy them, counting references, on every query.
        if comparison.quantifier == nil, let direct = comparison.direct {
            guard table.hasIndex(on: direct.column) else { return nil }
            return IndexLookup(column: direct.column, constants: direct.constants, type: direct.type)
        }
        if let elements = elementLookup(comparison) { return elements }
        guard comparison.quantifier == nil else { return nil }
        guard case .path(let path, nil) = comparison.left, path.hops.count == 1,
              case .constant(let constants) = comparison.right else { return nil }
        // A value column, or a to-one link (whose backlink index finds the objects linking to one).
        let column: Int
        switch path.hops[0] {
        case .value(let valueColumn): column = valueColumn
        case .link(let linkColumn, _): column = linkColumn
        default: return nil
        }
        guard table.hasIndex(on: column) else { return nil }
        return IndexLookup(column: column, constants: constants, type: path.property.type)
    }

    /// `ANY list == value`, `value IN set`, `map['key'] == value` and the like, through the
    /// index on the values of the collection's element table (which sets, maps and lists of
    /// objects have): the owners of the matching elements are the candidates.
    private func elementLookup(_ comparison: BoundComparison) -> IndexLookup? {
        guard comparison.quantifier == nil || comparison.quantifier == .any,
              case .path(let path, nil) = comparison.left, path.hops.count == 1,
              case .constant(let constants) = comparison.right, !constants.contains(.null) else { return nil }
        // Values the index can look up in their stored form (`stored(_:as:)`).
        guard path.property.type.canBeIndexed || path.property.type == .object else { return nil }
        let tableName: String, collection: Int
        var mapKey: String?
        switch path.hops[0] {
        case .list(let owner, let name, _): (tableName, collection) = (name, owner)
        case .map(let owner, let name, .values, _): (tableName, collection) = (name, owner)
        case .map(let owner, let name, .key(let key), _): (tableName, collection, mapKey) = (name, owner, key)
        default: return nil
        }
        let column = mapKey == nil ? 0 : MapStore.lookupColumn
        guard let elements = realm.readTable(named: tableName), elements.hasIndex(on: column) else { return nil }
        return IndexLookup(column: column, constants: constants, type: path.property.type, elements: elements, mapKey: mapKey, collectionColumn: collection)
    }

    /// A range of an integer or date index for `<`, `<=`, `>`, `>=` or `BETWEEN` with
    /// constants that have the column's stored form. Bounds are widened to whole index keys;
    /// the candidates are checked against the predicate anyway.
    private func rangeLookup(_ comparison: BoundComparison, in table: any TableReading) -> IndexLookup? {
        guard comparison.op.isOrdering, let (column, type, constants) = comparison.direct,
              type == .int || type == .date, table.hasIndex(on: column) else { return nil }
        let bounds = constants.map { Self.stored($0, as: type) }
        guard !bounds.isEmpty, bounds.allSatisfy({ $0 != nil && $0 != .null }) else { return nil }
        let keys = bounds.map { IndexKey.of($0!) }
        // Index key 0 holds both nil and the smallest value (Int64.min, or the date at Int64.min
        // seconds): a range reaching down to that value reads the bucket, and the predicate,
        // checked on every candidate, drops the nils (no ordering comparison matches nil).
        let (lower, upper): (UInt64, UInt64) = switch comparison.op {
        case .less, .lessOrEqual: (0, keys[0])
        case .greater, .greaterOrEqual: (keys[0], UInt64.max)
        default: keys.count == 2 ? (keys[0], keys[1]) : (1, 0)
        }
        // An empty range (BETWEEN {5, 1}) matches nothing: no values to look up.
        guard lower <= upper else { return IndexLookup(column: column, constants: [], type: type) }
        return IndexLookup(column: column, range: lower...upper)
    }

    /// `scalar` in the form a column of `type` stores it, for an index lookup; nil if no value of
    /// the column can equal it.
    static func stored(_ scalar: QueryScalar, as type: PropertyType) -> RowValue? {
        switch (scalar, type) {
        case (.null, _): return .null
        case (.int(let number), .int): return .int(number)
        case (.double(let number), .int): return Int64(exactly: number).map(RowValue.int)
        case (.decimal(let number), .int): return Int64(exactly: NSDecimalNumber(decimal: number).doubleValue).map(RowValue.int)
        case (.bool(let flag), .bool): return .bool(flag)
        case (.string(let text), .string): return .string(text)
        case (.date(let seconds, let nanoseconds), .date): return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case (.uuid(let bits), .uuid): return .uuid(bits)
        case (.objectId(let bytes), .objectId): return .binary(bytes)
        case (.object(let key), .object): return .objectKey(key)
        default: return nil
        }
    }
}
