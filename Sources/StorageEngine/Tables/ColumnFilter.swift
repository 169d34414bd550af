/// A test of a row's own columns that is made on a leaf's packed columns (`LeafColumn`), a leaf
/// at a time, into a bitmap of the leaf's rows that pass: how a scan for a filter, a count or an
/// aggregate tests rows without reading each row's bytes.
///
/// The object layer builds one from a predicate whose every comparison it can state this way,
/// and keeps the meaning of its operators: `ColumnFilter` only runs the loops.
package indirect enum ColumnFilter {
    case constant(Bool)
    /// An integer column within `range` (no value passes when it is nil); a row holding no
    /// integer there (null, or a column added after the row was written) passes if
    /// `nullMatches`.
    case integerRange(column: Int, range: ClosedRange<Int64>?, nullMatches: Bool)
    /// An integer column holding one of `values`; a row holding no integer passes if
    /// `nullMatches`.
    case integerSet(column: Int, values: Set<Int64>, nullMatches: Bool)
    /// A string column: `test` gets each row's UTF-8 bytes, nil where it holds no string.
    case string(column: Int, test: (UnsafeRawBufferPointer?) -> Bool)
    case not(ColumnFilter)
    case and([ColumnFilter])
    case or([ColumnFilter])

    /// The columns the filter reads, and as what.
    var columns: [(column: Int, kind: LeafColumn.Kind)] {
        switch self {
        case .constant: return []
        case .integerRange(let column, _, _), .integerSet(let column, _, _): return [(column, .integer)]
        case .string(let column, _): return [(column, .string)]
        case .not(let inner): return inner.columns
        case .and(let operands), .or(let operands): return operands.flatMap(\.columns)
        }
    }

    /// Sets `matches` to the bitmap of the rows of `rows` that pass (see `Bitmap`).
    func evaluate(_ rows: LeafRows, into matches: inout [UInt64]) throws {
        matches.removeAll(keepingCapacity: true)
        switch self {
        case .constant(let passes):
            let count = try rows.count()
            let words = Bitmap.words(for: count)
            matches.append(contentsOf: repeatElement(0, count: words))
            if passes { for word in 0..<words { matches[word] = Bitmap.mask(word: word, count: count) } }
        case .integerRange(let column, let range, let nullMatches):
            let values = try rows.column(column, .integer)
            Self.test(values, nullMatches: nullMatches, into: &matches) { integers, base, rows in
                guard let range else { return 0 }
                // One unsigned comparison per value: below the range wraps round to above it.
                let low = range.lowerBound
                let width = UInt64(bitPattern: range.upperBound &- low)
                var bits: UInt64 = 0
                for row in 0..<rows {
                    let passes: UInt64 = UInt64(bitPattern: integers[base &+ row] &- low) <= width ? 1 : 0
                    bits |= passes &<< UInt64(row)
                }
                return bits
            }
        case .integerSet(let column, let set, let nullMatches):
            let values = try rows.column(column, .integer)
            Self.test(values, nullMatches: nullMatches, into: &matches) { integers, base, rows in
                var bits: UInt64 = 0
                for row in 0..<rows where set.contains(integers[base &+ row]) { bits |= 1 &<< UInt64(row) }
                return bits
            }
        case .string(let column, let test):
            let values = try rows.column(column, .string)
            matches.append(contentsOf: repeatElement(0, count: Bitmap.words(for: values.count)))
            values.forEachString { row, bytes in
                if test(bytes) { matches[row >> 6] |= 1 &<< UInt64(row & 63) }
            }
        case .not(let inner):
            try inner.evaluate(rows, into: &matches)
            let count = try rows.count()
            for word in matches.indices { matches[word] = ~matches[word] & Bitmap.mask(word: word, count: count) }
        case .and(let operands), .or(let operands):
            var isAnd = false
            if case .and = self { isAnd = true }
            try Self.combine(operands, isAnd: isAnd, rows, into: &matches)
        }
    }

    /// The bitmap of an integer column's test: `bits` gives the bits of the values from `base`
    /// for `rows` rows (at most 64), which are then kept where a value is present, and set where
    /// none is if `nullMatches`.
    @inline(__always)
    private static func test(
        _ column: LeafColumn, nullMatches: Bool, into matches: inout [UInt64],
        _ bits: (UnsafeBufferPointer<Int64>, Int, Int) -> UInt64
    ) {
        column.integers.withUnsafeBufferPointer { integers in
            for word in 0..<Bitmap.words(for: column.count) {
                let rows = Swift.min(64, column.count - word << 6)
                let present = column.present[word]
                let absent = ~present & Bitmap.mask(word: word, count: column.count)
                matches.append(bits(integers, word << 6, rows) & present | (nullMatches ? absent : 0))
            }
        }
    }

    /// The bitmap of `operands` all passing (`isAnd`) or any passing.
    private static func combine(_ operands: [ColumnFilter], isAnd: Bool, _ rows: LeafRows, into matches: inout [UInt64]) throws {
        // The first operand's bitmap to start from: no column is needed to know the rows.
        guard let first = operands.first else { return try ColumnFilter.constant(isAnd).evaluate(rows, into: &matches) }
        try first.evaluate(rows, into: &matches)
        var operandMatches: [UInt64] = []
        for operand in operands.dropFirst() {
            try operand.evaluate(rows, into: &operandMatches)
            for word in matches.indices {
                matches[word] = isAnd ? matches[word] & operandMatches[word] : matches[word] | operandMatches[word]
            }
        }
    }
}
