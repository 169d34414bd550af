import Dispatch

/// Makes written pages a durable version: the header into the slot beside the durable one,
/// then a sync (invariant 1). It ends the group this commit closes and the epoch it is the
/// checkpoint of.
struct HeaderCommit {
    private let transaction: WriteTransaction
    private let written: WrittenVersion

    init(of transaction: WriteTransaction, written: WrittenVersion) {
        self.transaction = transaction
        self.written = written
    }

    /// - Throws: an I/O error writing or syncing the header; the slot is erased again, so the
    ///   file keeps the durable version, and the group this commit would have ended is lost.
    func commit(pinning: Bool, whenDurable: (@Sendable ((any Error)?) -> Void)?) throws -> (CommitResult, Snapshot?) {
        let shared = transaction.database.shared
        let file = transaction.base.store.file
        let version = written.header.version
        let slot = FileHeader.slot(replacingTheOneBeside: transaction.durableSlot)
        let groupLock = transaction.joinedGroup ? shared.groupLock : nil
        do {
            try written.header.write(to: file, slot: slot, cipher: shared.store.cipher)
            try file.sync()
        } catch {
            // The commit is reported as failed, so the file must not keep it: erase the slot
            // (the other slot holds the durable version) before giving the error to the caller,
            // with the group this commit would have ended.
            try? FileHeader.erase(slot: slot, of: file)
            if !written.keepsVersion {
                shared.forgetCommit(version: version)
            }
            if transaction.joinedGroup {
                let waiters = shared.abandonGroup()
                transaction.isActive = false
                groupLock?.unlock()
                for waiter in waiters { waiter(error) }
            }
            throw error
        }
        // Snapshots of the version a checkpoint keeps still read its held nodes.
        shared.retiredHeldNodes.withLock { $0.retire(transaction.space.freedInMemory, atVersion: written.keepsVersion ? version + 1 : version) }
        let waiters = shared.publishDurable(written.header, slot: slot, catalog: transaction.catalog, freeSpace: written.freeSpace)
        // The checkpoint is durable: the log's records are stale (their base is no longer the
        // file's newest header), and other processes may open the file.
        if written.epoch != nil { shared.endEpoch() }
        shared.releaseRetiredHeldNodes()
        shared.lastCommitTime.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        let snapshot = pinning ? transaction.pinnedLatest() : nil
        if transaction.joinedGroup {
            transaction.isActive = false
            groupLock?.unlock()
        }
        for waiter in waiters { waiter(nil) }
        whenDurable?(nil)
        return (written.result, snapshot)
    }
}
