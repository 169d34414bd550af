import StorageEngine

extension QueryEvaluator {
    /// `predicate` as a test the engine makes on a leaf's packed columns (`ColumnFilter`), for a
    /// count, a list of keys or a total: nil unless every comparison in it has a row test
    /// (`BoundComparison.rowTest`), which says what the column test must do.
    static func columnFilter(_ predicate: BoundPredicate) -> ColumnFilter? {
        switch predicate {
        case .constant(let value):
            return .constant(value)
        case .not(let inner):
            return columnFilter(inner).map { .not($0) }
        case .and(let operands):
            return columnFilters(operands).map { .and($0) }
        case .or(let operands):
            return columnFilters(operands).map { .or($0) }
        case .comparison(let comparison):
            switch comparison.rowTest {
            case .integer(let column, let test, let nilHolds)?:
                return test.columnFilter(column: column, nilHolds: nilHolds)
            case .asciiString(let test)?:
                return .string(column: test.column, test: test.compiledOnBytes(comparison))
            case nil:
                return nil
            }
        }
    }

    private static func columnFilters(_ operands: [BoundPredicate]) -> [ColumnFilter]? {
        var filters: [ColumnFilter] = []
        for operand in operands {
            guard let filter = columnFilter(operand) else { return nil }
            filters.append(filter)
        }
        return filters
    }
}

extension IntegerTest {
    /// This test of `column` on packed columns; a row holding no integer there passes when
    /// `nilHolds`.
    func columnFilter(column: Int, nilHolds: Bool) -> ColumnFilter {
        switch self {
        case .notEqual(let c):
            // Null holds for != (`nilHolds`), and fails the range inside.
            return .not(.integerRange(column: column, range: c...c, nullMatches: !nilHolds))
        case .in(let set):
            return .integerSet(column: column, values: set, nullMatches: nilHolds)
        default:
            return .integerRange(column: column, range: bounds, nullMatches: nilHolds)
        }
    }
}
