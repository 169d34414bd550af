import StorageEngine

/// The class and table the last `add` of a realm went to, unretained, and the write
/// transaction it was in: what the next add of the same class borrows instead of looking up
/// and retaining (see `Realm.withAddTarget(for:_:)`). Valid only in that transaction, while the
/// class info holds the table writer.
struct AddTarget {
    var type: ObjectIdentifier
    var info: Unmanaged<ClassInfo>
    var table: Unmanaged<TableWriter>
    var transactionSerial: Int
}
