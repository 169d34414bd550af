/// A commit that joins the process's commit group instead of writing its header and syncing
/// (see `CommitGroup`): it returns once its pages are written, the group keeps the write lock,
/// and the waiter learns when the group is durable (nil) or lost (the error).
struct GroupedCommit {
    private let transaction: WriteTransaction
    private let written: WrittenVersion

    init(of transaction: WriteTransaction, written: WrittenVersion) {
        self.transaction = transaction
        self.written = written
    }

    func commit(pinning: Bool, whenDurable: @escaping @Sendable ((any Error)?) -> Void) -> (CommitResult, Snapshot?) {
        let database = transaction.database
        let opening = transaction.joinedGroup ? nil : (durable: transaction.baseHeader, slot: transaction.durableSlot, lock: database.writeLock)
        let pin = database.shared.addToGroup(
            opening: opening, newest: written.header, catalog: transaction.catalog, freeSpace: written.freeSpace,
            pages: written.pages + [written.freeList, written.commitRecord], waiter: whenDurable)
        // The file's lock and the turn now belong to the group.
        require(transaction.joinedGroup || transaction.holdsFileLock, "a commit group opened by a writer without the file's write lock")
        transaction.ownsLock = false
        transaction.isActive = false
        if opening != nil { database.shared.writers.signal() }
        let version = written.header.version
        return (written.result, pinning ? Snapshot(version: version, catalog: transaction.catalog, store: database.shared.store, pin: pin) : nil)
    }
}
