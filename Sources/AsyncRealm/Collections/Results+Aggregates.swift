import Foundation
import StorageEngine

extension Results {
    /// The smallest value of `property` among the objects (nil and NaN values left out, as in
    /// Realm), nil if there is none.
    ///
    /// - Parameter property: A numeric or date property's name.
    /// - Returns: The smallest value, or nil when there are none.
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        extreme(of: property) { $0 < 0 }
    }

    /// The largest value of `property` among the objects (nil and NaN values left out, as in
    /// Realm), nil if there is none.
    ///
    /// - Parameter property: A numeric or date property's name.
    /// - Returns: The largest value, or nil when there are none.
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        extreme(of: property) { $0 > 0 }
    }

    /// The sum of `property` over the objects (nil and NaN values left out, as in Realm); zero
    /// if there are none.
    ///
    /// Integers add up exactly, however many and however large. The sum is returned as `T`
    /// when `T` holds it (a `Double`, `Float` or `Decimal` always does, to its precision).
    ///
    /// - Important: A sum that `T` cannot hold (two `Int64.max` summed as `Int`) stops with a
    ///   message naming the property and the sum, never a wrapped number: ask for a `Decimal`
    ///   or `Double` sum where the values can be that large.
    ///
    /// - Parameter property: A numeric property's name.
    /// - Returns: The sum; zero for no values.
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        Aggregates.sum(total(of: property), as: T.self, of: "'\(info.schema.className).\(property)'")
    }

    /// The mean of `property` over the objects (nil and NaN values left out, as in Realm), nil
    /// if there are none.
    ///
    /// - Parameter property: A numeric property's name.
    /// - Returns: The mean, or nil when there are no values.
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        Aggregates.average(total(of: property), as: T.self, of: "'\(info.schema.className).\(property)'")
    }

    // MARK: Helpers

    /// The values of `property` over the objects, nil and NaN ones left out.
    private func values(of property: String, for use: String) -> (values: [QueryScalar], type: PropertyType) {
        handle.checkThread()
        let path = boundPath(property, for: use)
        if path.hops.count == 1, case .value(let column) = path.hops[0], let table = readableTable, let scan = rowScan(of: table) {
            // Every object, or those a test of their stored rows picks, one column: one pass
            // over the table, decoding that column alone.
            var values: [QueryScalar] = []
            readOrStop {
                try table.scan { _, row in
                    guard try scan.matches?(row) ?? true else { return true }
                    let value = QueryScalar(stored: try row.column(column), type: path.property.type)
                    if value.isAggregated { values.append(value) }
                    return true
                }
            }
            return (values, path.property.type)
        }
        let evaluator = QueryEvaluator(realm: handle)
        let values = keys.compactMap { evaluator.value(of: path, key: $0, schema: info.schema) }.filter(\.isAggregated)
        return (values, path.property.type)
    }

    /// The sum and count of an integer or double column over the objects, in one pass over the
    /// stored rows with nothing collected; nil when that does not apply (see `rowScan(of:)`).
    private func scannedTotal(of name: String) -> (Any, Int)? {
        guard let column = info.columns[name], let property = info.schema[name], !property.isCollection,
              property.type == .int || property.type == .double, let table = readableTable, let scan = rowScan(of: table) else { return nil }
        let (integers, reals, count) = readOrStop {
            if scan.matches == nil || scan.filter != nil {
                // From the packed columns, a leaf at a time.
                return try table.total(ofColumn: column, kind: property.type == .int ? .integer : .double, where: scan.filter)
            }
            return try table.total(ofColumn: column, where: scan.matches)
        }
        return property.type == .int ? (integers, count) : (reals, count)
    }

    /// A pass over every stored row of the class, testing each with `matches` (every row is
    /// one of the objects when it is nil), or `filter` on the packed columns when the engine
    /// can make the same test there.
    private struct RowScan {
        let matches: ((RowView) throws -> Bool)?
        let filter: ColumnFilter?
    }

    /// How a single pass over the class's stored rows finds these results' objects: every row
    /// (`matches` nil) for the whole class, or the rows a compiled test of the stored values
    /// picks for a filter of it. Nil for results that are sorted, distinct, limited, made from
    /// a list or linking objects, or filtered by a predicate the rows cannot decide alone or
    /// that an index answers faster: those read the objects their keys name.
    private func rowScan(of table: any TableReading) -> RowScan? {
        guard steps.isEmpty, base == nil else { return nil }
        guard let query else { return RowScan(matches: nil, filter: nil) }
        guard QueryPlanner(realm: handle, info: info).indexLookup(for: query, in: table) == nil,
              let matches = QueryEvaluator.compileOnRows(query) else { return nil }
        return RowScan(matches: matches, filter: QueryEvaluator.columnFilter(query))
    }

    /// The smallest (or, if `better(1)`, the largest) value of an integer or double property
    /// over the objects, from the packed columns (see `rowScan(of:)`), in the order
    /// `QueryScalar.order` gives: nil when that does not apply, `.some(nil)` when no object
    /// holds a value.
    private func scannedExtreme(of name: String, _ better: (Int) -> Bool) -> QueryScalar?? {
        guard let column = info.columns[name], let property = info.schema[name], !property.isCollection,
              property.type == .int || property.type == .double,
              let table = readableTable, let scan = rowScan(of: table), scan.matches == nil || scan.filter != nil else { return nil }
        let largest = better(1)
        if property.type == .int {
            let range = readOrStop { try table.integerRange(ofColumn: column, where: scan.filter) }
            return .some(range.map { .int(largest ? $0.upperBound : $0.lowerBound) })
        }
        let extremes = readOrStop { try table.doubleExtremes(ofColumn: column, where: scan.filter) }
        return .some(extremes.map { .double(largest ? $0.largest : $0.smallest) })
    }

    private func extreme<T: _Persistable>(of property: String, _ better: (Int) -> Bool) -> T? {
        handle.checkThread()
        if let scanned = scannedExtreme(of: property, better) {
            guard let scanned else { return nil }
            return Aggregates.extreme([scanned], type: info.schema[property]!.type, better)
        }
        let (values, type) = values(of: property, for: "take the minimum or maximum of")
        return Aggregates.extreme(values, type: type, better)
    }

    /// The sum (`Int128`, `Double` or `Decimal`, as the property's type) and the count.
    private func total(of property: String) -> (Any, Int) {
        handle.checkThread()
        if let total = scannedTotal(of: property) { return total }
        let (values, type) = values(of: property, for: "sum")
        return Aggregates.total(values, type: type, of: "'\(info.schema.className).\(property)'")
    }
}
