import StorageEngine

/// Decoded rows shared by the accessors of the objects read together (a batch of a `Results`
/// iteration, or one object): each accessor keeps the range of its row's values. One array per
/// batch rather than one per object, which is what iterating many objects spends its time
/// allocating and freeing otherwise.
final class RowBuffer {
    /// (Exclusivity is unchecked: the buffer is filled before any accessor shares it, and only
    /// read after.)
    @exclusivity(unchecked) private(set) var values: [Value] = []

    init() {}

    /// A buffer holding the one row `values`.
    init(row values: [Value]) {
        self.values = values
    }

    /// Decodes `row` after the rows already held and returns the range of its values.
    func append(_ row: RowView) throws -> Range<Int> {
        let start = values.count
        try row.decode(appendingTo: &values)
        return start..<values.count
    }

    func reserveCapacity(_ count: Int) {
        values.reserveCapacity(count)
    }

    /// Column `column` of the row at `range`; null past the row's end (a column added later).
    @inline(__always)
    func column(_ column: Int, in range: Range<Int>) -> Value {
        column < range.count ? values[range.lowerBound + column] : .null
    }

    /// Every column of the row at `range`.
    func row(in range: Range<Int>) -> [Value] {
        Array(values[range])
    }
}
