extension TableReading {
    /// Copies the rows of whole leaves, from `key` on, until at least `minimum` rows are
    /// copied or the table ends; returns whether it ended.
    ///
    /// Each leaf's encoded rows go to `copy` in one piece, which returns where it put them, so
    /// that a batch of rows is a few copies rather than one per row. The leaf's keys are
    /// appended to `keys`, and each row's place among the copied bytes to `rows`, nil for a row
    /// stored in overflow pages (read it by its key).
    package func copyRowBatch(
        from key: UInt64, minimum: Int, keys: inout [UInt64], rows: inout [Range<Int>?],
        copy: (UnsafeRawBufferPointer) -> Range<Int>
    ) throws -> Bool {
        let countBefore = keys.count
        try scanRowLeaves(from: key) { leaf in
            let (first, count) = (leaf.start, leaf.keys.count)
            let base = leaf.valueStart(first)
            let copied = copy(UnsafeRawBufferPointer(rebasing: leaf.bytes[base..<leaf.valueEnd(count - 1)]))
            let offset = copied.lowerBound - base
            keys.append(contentsOf: UnsafeBufferPointer(rebasing: leaf.keys[first..<count]))
            var start = base
            for index in first..<count {
                let end = leaf.valueEnd(index)
                rows.append(leaf.isOverflow(index) ? nil : (start + offset)..<(end + offset))
                start = end
            }
            return keys.count - countBefore < minimum
        }
        return keys.count - countBefore < minimum
    }
}
