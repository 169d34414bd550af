import Dispatch

/// A small synchronous commit of rows: its changed nodes stay in memory and its rows are
/// appended to the redo log, synced (see `LogEpoch`). Any other commit while an epoch is open
/// is that epoch's checkpoint, writing what the logged ones hold in memory.
struct LoggedCommit {
    private let transaction: WriteTransaction
    private let epoch: LogEpoch
    private let payload: [UInt8]

    /// The logged commit of `transaction`, or nil if it cannot be one: it wrote pages, joined a
    /// group, changed more than rows, has a record too large for the log, or the file is
    /// wanted by another process (noticed by the epoch's watcher, which asks for a
    /// checkpoint). Opens an epoch into `epoch` if none is open.
    init?(of transaction: WriteTransaction, record: RedoRecord?, epoch: inout LogEpoch?) throws {
        let shared = transaction.database.shared
        guard !transaction.joinedGroup, transaction.database.logsCommits, transaction.space.writtenBytes == 0,
              let record, !record.operations.isEmpty else { return nil }
        let payload = record.encoded()
        guard payload.count <= LogEpoch.largestRecord, !shared.checkpointRequested.withLock({ $0 }) else { return nil }
        if epoch == nil { epoch = try shared.beginEpoch(base: transaction.baseHeader) }
        guard let open = epoch, !open.isFull(forRecordOf: payload.count) else { return nil }
        transaction.space.releaseUnkeptEarlyPageWrites()
        self.transaction = transaction
        self.epoch = open
        self.payload = payload
    }

    /// Commits by keeping the changed nodes in memory and appending the record to the log.
    ///
    /// - Throws: an I/O error writing or syncing the record; the log then ends before it and
    ///   nothing of the transaction is kept.
    func commit(pinning: Bool) throws -> (CommitResult, Snapshot?) {
        let space = transaction.space
        let version = transaction.base.version + 1
        let shared = transaction.database.shared
        // First what needs no durable record: the nodes of the commit go into memory, under
        // references no reader can reach before the state below is published, and nodes
        // earlier commits retired are released (which depends on no part of this one).
        for table in transaction.tables where table.isModified || table.rowTree.isModified {
            transaction.catalog.tables[table.name] = table.flushToMemory()
        }
        // Their roots are in the catalog; whatever else they kept can go now too.
        transaction.tables.removeAll()
        shared.releaseRetiredHeldNodes()
        let result = CommitResult(version: version, changeset: transaction.recorder.changeset, pageBytes: 0)
        // A header for this process only: no catalog page exists; the catalog is kept beside it.
        let header = FileHeader(version: version, catalog: .null, freeList: .null, commitRecord: .null, end: space.freeSpace.end, fileID: transaction.baseHeader.fileID)
        let now = DispatchTime.now().uptimeNanoseconds
        do {
            try epoch.log.append(version: version, payload: payload)
        } catch {
            for ref in space.heldInMemory { shared.store.releaseFromMemory(ref) }
            space.heldInMemory.removeAll()
            throw error
        }
        epoch.freedOnDisk += space.freed
        epoch.commits += 1
        shared.retiredHeldNodes.withLock { $0.retire(space.freedInMemory, atVersion: version) }
        shared.lastCommitTime.withLock { $0 = now }
        // Still under the write lock: no other commit comes between publishing and pinning.
        let catalog = transaction.catalog
        let snapshot = shared.publish(result, header: header, catalog: catalog, freeSpace: space.freeSpace, pinning: pinning)
            .map { Snapshot(version: version, catalog: catalog, store: shared.store, pin: $0) }
        transaction.end()
        return (result, snapshot)
    }
}
