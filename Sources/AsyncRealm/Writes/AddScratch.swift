import StorageEngine

/// What the adds of a realm's write reuse from one call to the next, so that a bulk add does
/// not pay per object for what it found already.
struct AddScratch {
    /// The class and table the last `add` went to, unretained, and the write transaction it
    /// was in: what the next add of the same class borrows instead of looking up and retaining
    /// (see `Realm.withAddTarget(for:_:)`). Valid only in that transaction, while the class
    /// info holds the table writer.
    struct Target {
        var type: ObjectIdentifier
        var info: Unmanaged<ClassInfo>
        var table: Unmanaged<TableWriter>
        var transactionSerial: Int
    }

    /// The storage of the last added object's values, kept for the next: a bulk add allocated
    /// and freed an array per object (see `Realm.unmanagedValues(of:info:)`).
    var values: [RowValue] = []
    /// The update policy of the `add` call in progress, applied to the objects it links to.
    var policy: Realm.UpdatePolicy = .error
    /// The class and table the last add went to (see `Realm.withAddTarget(for:_:)`).
    var target: Target?
    /// The last class `add` found not to be embedded: the check is a dynamic cast of the
    /// class, which a bulk add of one class made for every object.
    var notEmbedded: ObjectIdentifier?
}
