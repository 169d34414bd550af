extension TableWriter {
    /// Replaces every row with what `transform` makes of it, in one pass in key order: the rows
    /// are read from `source` and appended to a new row tree, with no search per row (what a
    /// migration does to a class whose columns change). Keys, the row count and the next key
    /// stay; the indexes are not touched, so the caller drops or rebuilds those of columns that
    /// move.
    ///
    /// `source` must hold exactly this table's rows: the table as the transaction's base version
    /// has it, with no row changed in the transaction yet (`rowsAreUnchanged`), since the old
    /// tree's pages are freed first. They stay readable through `source` until the transaction
    /// ends: no committed page is reused by the transaction that frees it (invariant 2).
    ///
    /// - Parameters:
    ///   - source: The rows to transform, the base version's reader of this table.
    ///   - transform: Fills the new row of the given key and old row (handed over empty).
    package func rewriteRows(from source: some TableReading, _ transform: (UInt64, RowView, inout [RowValue]) throws -> Void) throws {
        require(rowsAreUnchanged, "rewriteRows needs a table whose rows the transaction has not changed yet")
        redo.stop()
        try rowTree.freeAll()
        var values: [RowValue] = []
        var encoded = ByteWriter(capacity: 256)
        try source.scan(0...UInt64.max) { key, row in
            values.removeAll(keepingCapacity: true)
            try transform(key, row, &values)
            encoded.bytes.removeAll(keepingCapacity: true)
            RowCodec.encode(values, into: &encoded)
            // Appends do not spill by themselves (see MutableTree+Spill); a rewrite does, so
            // that rewriting a table takes no more memory than the leaves it keeps.
            try rowTree.spillIfNeeded()
            try rowTree.append(key, encoded.bytes)
            changes.recordModify(key, columns: 0..<values.count)
            return true
        }
        isModified = true
    }

    /// Whether no row of the table changed in this transaction (an index may have).
    package var rowsAreUnchanged: Bool { rowTree.rootChild == .stored(roots.rows) }
}
