/// Counts, keys and totals of the rows a `ColumnFilter` picks, read a leaf at a time from the
/// leaves' packed columns (`LeafColumn`) instead of row by row.
extension TableReading {
    /// How many rows pass `filter`.
    package func count(where filter: ColumnFilter) throws -> Int {
        var count = 0
        var matches: [UInt64] = []
        try forEachRows(reading: filter.columns) { rows in
            try filter.evaluate(rows, into: &matches)
            count += Bitmap.population(matches)
        }
        return count
    }

    /// The keys of the rows that pass `filter`, in key order.
    package func keys(where filter: ColumnFilter) throws -> [UInt64] {
        var keys: [UInt64] = []
        var matches: [UInt64] = []
        try forEachLeafRows(reading: filter.columns) { rows in
            try filter.evaluate(rows, into: &matches)
            try rows.leaf().keys.withUnsafeBufferPointer { leafKeys in
                for (word, bits) in matches.enumerated() {
                    var remaining = bits
                    while remaining != 0 {
                        keys.append(leafKeys[word << 6 | remaining.trailingZeroBitCount])
                        remaining &= remaining &- 1
                    }
                }
            }
        }
        return keys
    }

    /// The sum of integer or double column `column` (as `kind` says) over every row, or over
    /// the rows `filter` picks, and how many of them hold a number there: what
    /// `total(ofColumn:where:)` gives, from the packed columns.
    package func total(
        ofColumn column: Int, kind: LeafColumn.Kind, where filter: ColumnFilter?
    ) throws -> (integers: Int128, reals: Double, count: Int) {
        require(kind != .string, "a total is of an integer or a double column, not a string column")
        var (integers, reals, count): (Int128, DoubleSum, Int) = (0, DoubleSum(), 0)
        try forEachSelected(column, kind, where: filter) { values, selected in
            count += Bitmap.population(selected)
            if kind == .integer {
                integers += Self.sum(values.integers, selectedBy: selected)
            } else {
                // NaNs are left out of the sum (`DoubleSum`) and of the count.
                count -= Self.add(values.doubles, selectedBy: selected, to: &reals)
            }
        }
        return (integers, reals.total, count)
    }

    /// The smallest and the largest integer of column `column` over every row, or over the
    /// rows `filter` picks; nil if none of them holds an integer there.
    package func integerRange(ofColumn column: Int, where filter: ColumnFilter?) throws -> ClosedRange<Int64>? {
        var (low, high) = (Int64.max, Int64.min)
        var found = false
        try forEachSelected(column, .integer, where: filter) { values, selected in
            Self.forEachSelected(values.integers, selectedBy: selected) { value in
                (low, high) = (Swift.min(low, value), Swift.max(high, value))
                found = true
            }
        }
        return found ? low...high : nil
    }

    /// The smallest and the largest double of column `column` over every row, or over the
    /// rows `filter` picks, NaNs left out, and of values that compare equal (-0 and +0) the
    /// first in row order; nil if none of the rows holds a double there but NaN.
    package func doubleExtremes(ofColumn column: Int, where filter: ColumnFilter?) throws -> (smallest: Double, largest: Double)? {
        var extremes: (smallest: Double, largest: Double)?
        try forEachSelected(column, .double, where: filter) { values, selected in
            Self.forEachSelected(values.doubles, selectedBy: selected) { value in
                // NaN is left out, as Realm's aggregates leave it out; of equal values (0.0
                // and -0.0) the first is kept.
                guard !value.isNaN else { return }
                guard let (smallest, largest) = extremes else { return extremes = (value, value) }
                if value < smallest { extremes!.smallest = value }
                if value > largest { extremes!.largest = value }
            }
        }
        return extremes
    }

    /// Calls `body` with each leaf's column `column` read as `kind`, and the bitmap of the
    /// rows to read in it: those holding a value of the kind that `filter` picks, or all of
    /// them without a filter (no bitmap is made then).
    private func forEachSelected(
        _ column: Int, _ kind: LeafColumn.Kind, where filter: ColumnFilter?, _ body: (LeafColumn, [UInt64]) throws -> Void
    ) throws {
        var matches: [UInt64] = []
        try forEachRows(reading: [(column, kind)] + (filter?.columns ?? [])) { rows in
            let values = try rows.column(column, kind)
            guard let filter else { return try body(values, values.present) }
            try filter.evaluate(rows, into: &matches)
            for word in matches.indices { matches[word] &= values.present[word] }
            try body(values, matches)
        }
    }

    /// Calls `body` with the values whose bits are set, in row order.
    @inline(__always)
    private static func forEachSelected<Value>(_ values: [Value], selectedBy bits: [UInt64], _ body: (Value) -> Void) {
        values.withUnsafeBufferPointer { values in
            for (word, selected) in bits.enumerated() {
                var remaining = selected
                while remaining != 0 {
                    body(values[word << 6 | remaining.trailingZeroBitCount])
                    remaining &= remaining &- 1
                }
            }
        }
    }

    /// Calls `body` once with the rows of the whole table, if its columns `wanted` are kept
    /// joined into one array each, or else with each leaf's rows (`forEachLeafRows`), joining
    /// them as it goes if the plan says to (`wholeTablePlan(reading:)`). The rows given must
    /// be read only by those columns and not kept past the call.
    private func forEachRows(
        reading wanted: [(column: Int, kind: LeafColumn.Kind)], _ body: (LeafRows) throws -> Void
    ) throws {
        switch wholeTablePlan(reading: wanted) {
        case .whole(let rows):
            try body(rows)
        case .leaves:
            try forEachLeafRows(reading: wanted, body)
        case .leavesJoining(let join):
            try forEachLeafRows(reading: wanted) { rows in
                try body(rows)
                try join.collect(rows)
            }
            join.finish()
        }
    }

    /// Calls `body` with each leaf of the row tree, in key order, read only if `body` asks
    /// for its rows or keys, or for a column the cache does not keep (`LeafRows`); the kept
    /// columns `wanted` are looked up and loaded a leaf ahead (`LeafReadAhead`). The rows
    /// given are one of two objects reused from leaf to leaf: `body` must not keep them past
    /// its call.
    private func forEachLeafRows(
        reading wanted: [(column: Int, kind: LeafColumn.Kind)], _ body: (LeafRows) throws -> Void
    ) throws {
        var ahead = LeafReadAhead(reading: wanted, store: rowTree.store)
        try rowTree.forEachLeafUnread { ref, leaf in
            if let rows = ahead.take(ref, leaf) { try body(rows) }
            return true
        }
        if let rows = ahead.last() { try body(rows) }
    }

    /// The sum of the values whose bits are set, exactly: each word's values are added in an
    /// `Int64` with a check for overflow, and only a word that overflows is added again wide.
    private static func sum(_ values: [Int64], selectedBy bits: [UInt64]) -> Int128 {
        values.withUnsafeBufferPointer { values in
            var total: Int128 = 0
            for (word, selected) in bits.enumerated() where selected != 0 {
                let base = word << 6
                let rows = Swift.min(64, values.count - base)
                var partial: Int64 = 0
                var overflowed = false
                for row in 0..<rows {
                    // The value where its bit is set, 0 where not, without a branch.
                    let mask = 0 &- Int64(bitPattern: selected &>> UInt64(row) & 1)
                    let (sum, overflow) = partial.addingReportingOverflow(values[base &+ row] & mask)
                    partial = sum
                    overflowed = overflowed || overflow
                }
                if overflowed {
                    for row in 0..<rows where selected &>> UInt64(row) & 1 != 0 { total += Int128(values[base &+ row]) }
                } else {
                    total += Int128(partial)
                }
            }
            return total
        }
    }

    /// Adds the values whose bits are set to `sum`, in row order: a word whose rows are all
    /// selected at once (`DoubleSum.add(contentsOf:)`), the others a set bit at a time.
    /// Returns how many of them are NaN (left out).
    private static func add(_ values: [Double], selectedBy bits: [UInt64], to sum: inout DoubleSum) -> Int {
        values.withUnsafeBufferPointer { values in
            var nans = 0
            for (word, selected) in bits.enumerated() where selected != 0 {
                let base = word << 6
                let rows = Swift.min(64, values.count &- base)
                if selected == (rows == 64 ? ~0 : (1 &<< UInt64(rows)) &- 1) {
                    nans &+= sum.add(contentsOf: UnsafeBufferPointer(rebasing: values[base..<(base &+ rows)]))
                    continue
                }
                var remaining = selected
                while remaining != 0 {
                    if !sum.add(values[base | remaining.trailingZeroBitCount]) { nans &+= 1 }
                    remaining &= remaining &- 1
                }
            }
            return nans
        }
    }
}
