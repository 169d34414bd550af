import Foundation

// Ranges in type-safe queries, as RealmSwift writes them: `$0.age.contains(18...65)` for a
// value (`BETWEEN`), and for a list, set or map `$0.scores.contains(0..<10)`, which holds when
// every element lies in the range (its `@min` and `@max` do; never for an empty collection).

extension Query where T: _Persistable & Comparable {
    /// Whether the value lies in a range (`BETWEEN` in a predicate string).
    ///
    /// - Parameter range: The lowest and highest values, both included.
    /// - Returns: The comparison.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        predicate(.between, [range.lowerBound, range.upperBound])
    }

    /// Whether the value lies in a half-open range: at least its lower bound, below its upper.
    ///
    /// - Parameter range: The range, its upper bound left out.
    /// - Returns: The comparison.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        predicate(.greaterOrEqual, range.lowerBound) && predicate(.less, range.upperBound)
    }
}

extension Query where T: OptionalQueryComparable {
    /// Whether the value lies in a range (never for nil).
    ///
    /// - Parameter range: The lowest and highest values, both included.
    /// - Returns: The comparison.
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        predicate(.between, [range.lowerBound, range.upperBound])
    }

    /// Whether the value lies in a half-open range (never for nil).
    ///
    /// - Parameter range: The range, its upper bound left out.
    /// - Returns: The comparison.
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        predicate(.greaterOrEqual, range.lowerBound) && predicate(.less, range.upperBound)
    }
}

extension Query where T: QueryCollection, T.QueryElement: Comparable {
    /// Whether every element (a map's every value) lies in a range: the smallest at least its
    /// lower bound, the largest at most its upper. Never for an empty collection.
    ///
    /// - Parameter range: The lowest and highest values, both included.
    /// - Returns: The comparison.
    public func contains(_ range: ClosedRange<T.QueryElement>) -> Query<Bool> {
        extremes(from: range.lowerBound, to: range.upperBound, upperIncluded: true)
    }

    /// Whether every element (a map's every value) lies in a half-open range. Never for an
    /// empty collection.
    ///
    /// - Parameter range: The range, its upper bound left out.
    /// - Returns: The comparison.
    public func contains(_ range: Range<T.QueryElement>) -> Query<Bool> {
        extremes(from: range.lowerBound, to: range.upperBound, upperIncluded: false)
    }
}

extension Query where T: QueryCollection, T.QueryElement: OptionalQueryComparable {
    /// Whether every value, nils left out, lies in a range. Never for a collection of no values.
    ///
    /// - Parameter range: The lowest and highest values, both included.
    /// - Returns: The comparison.
    public func contains(_ range: ClosedRange<T.QueryElement.Wrapped>) -> Query<Bool> {
        extremes(from: range.lowerBound, to: range.upperBound, upperIncluded: true)
    }

    /// Whether every value, nils left out, lies in a half-open range. Never for a collection of
    /// no values.
    ///
    /// - Parameter range: The range, its upper bound left out.
    /// - Returns: The comparison.
    public func contains(_ range: Range<T.QueryElement.Wrapped>) -> Query<Bool> {
        extremes(from: range.lowerBound, to: range.upperBound, upperIncluded: false)
    }
}

extension Query where T: QueryCollection {
    /// `@min >= lower AND @max <= upper` (`<` when the upper bound is left out).
    fileprivate func extremes(from lower: Any, to upper: Any, upperIncluded: Bool) -> Query<Bool> {
        let smallest = Query<T.QueryElement>(realm: realm, path: path, aggregate: "min")
        let largest = Query<T.QueryElement>(realm: realm, path: path, aggregate: "max")
        return smallest.predicate(.greaterOrEqual, lower) && largest.predicate(upperIncluded ? .lessOrEqual : .less, upper)
    }
}
