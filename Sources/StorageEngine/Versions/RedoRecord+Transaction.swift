extension RedoRecord {
    /// Makes the record's changes in `transaction`, which must start from the version the
    /// recorded transaction started from (see `apply(toTables:)`).
    package func apply(to transaction: WriteTransaction) throws {
        try apply(toTables: transaction.table)
    }
}
