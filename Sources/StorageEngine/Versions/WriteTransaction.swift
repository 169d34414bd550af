import Dispatch

/// The one write transaction of a database at a time: copy-on-write changes to the newest
/// version, made durable by `commit()` or dropped by `rollback()`.
///
/// Nothing a transaction does is visible to anyone, and nothing it writes lands where a
/// committed version can see it, until the header flip at the end of `commit()`.
package final class WriteTransaction {
    /// The version this transaction started from; pinned until the transaction ends.
    package let base: Snapshot
    private let database: Database
    private let space: TransactionSpace
    private let recorder = ChangeRecorder()
    private let redo = RedoRecorder()
    private var catalog: Catalog
    /// The tables opened so far, found by a search of their names: a transaction opens a few,
    /// and comparing a name costs less than hashing it.
    @exclusivity(unchecked) private var tables: [TableWriter] = []
    private let baseHeader: FileHeader
    /// The slot of the newest durable header, which this commit must not overwrite.
    private let durableSlot: Int
    /// Whether the transaction started inside the process's commit group, whose lock it uses.
    private let joinedGroup: Bool
    /// Whether ending the transaction releases the write lock: it took the lock itself and did
    /// not hand it to a commit group.
    private var ownsLock: Bool
    /// Whether it took the file's write lock, besides the process's writer lock (not while
    /// the process logs; see `Database.tryBeginWrite`).
    private let holdsFileLock: Bool
    package private(set) var isActive = true
    /// Set by `commitCheckpoint()`.
    private var isCheckpointOnly = false

    /// Commits writing more page bytes than this sync twice instead of recording their pages.
    package static let syncedPagesThreshold = 4 << 20

    init(database: Database, header: FileHeader, base: Snapshot, freeSpace: FreeSpace, durableSlot: Int, joinedGroup: Bool, holdsFileLock: Bool) {
        self.holdsFileLock = holdsFileLock
        self.database = database
        self.base = base
        self.baseHeader = header
        self.durableSlot = durableSlot
        self.joinedGroup = joinedGroup
        self.ownsLock = !joinedGroup
        self.catalog = base.catalog
        self.space = TransactionSpace(store: base.store, freeSpace: freeSpace)
    }

    deinit {
        if isActive { end() }
    }

    /// Gives up what the transaction holds: the write lock, or its turn in the group.
    private func end() {
        isActive = false
        // Nothing may reach the file once the transaction is over: its space is anyone's.
        space.stopEarlyPageWrites()
        if ownsLock {
            database.endWrite(releasingFileLock: holdsFileLock)
        } else if joinedGroup {
            database.shared.leaveGroup()
        }
    }

    /// The changes made so far.
    package var changeset: Changeset { recorder.changeset }

    /// The row changes made so far as a redo record, or nil if the transaction did something a
    /// record cannot hold (see `RedoRecord`).
    package var redoRecord: RedoRecord? { redo.record }

    package var tableNames: [String] { catalog.tables.keys.sorted() }

    /// The table named `name` for reading and writing, or nil if there is none.
    package func tableIfPresent(_ name: String) -> TableWriter? {
        require(isActive, "this write transaction has already ended; begin a new one")
        if let table = tables.first(where: { $0.name == name }) { return table }
        guard let roots = catalog.tables[name] else { return nil }
        let table = TableWriter(name: name, roots: roots, space: space, recorder: recorder, redo: redo)
        tables.append(table)
        return table
    }

    /// The table named `name`.
    ///
    /// - Throws: `noSuchTable` if there is none.
    package func table(_ name: String) throws -> TableWriter {
        guard let table = tableIfPresent(name) else {
            throw StorageError(.noSuchTable, "there is no table '\(name)'")
        }
        return table
    }

    /// The table named `name`, created empty if it does not exist.
    @discardableResult
    package func createTable(_ name: String) -> TableWriter {
        if let table = tableIfPresent(name) { return table }
        redo.stop()
        catalog.tables[name] = TableRoots()
        return tableIfPresent(name)!
    }

    /// Drops the table named `name` and frees its pages.
    package func dropTable(_ name: String) throws {
        guard let table = tableIfPresent(name) else { return }
        redo.stop()
        try table.freeAll()
        tables.removeAll { $0 === table }
        catalog.tables[name] = nil
    }

    /// How far past the data each commit makes sure the file has no holes.
    static let preparedTailBytes: UInt64 = 256 << 10

    /// Makes the transaction durable and visible, and returns the version it produced.
    ///
    /// The protocol (invariant 1): write every new page into space no committed version uses,
    /// then a commit record listing those pages, then the header into slot `version % 2`, and
    /// sync once. The other slot keeps the base version and nothing it references was touched,
    /// so a crash at any instant, keeping any subset of these writes, leaves either the new
    /// header with every page it needs (the record proves it) or the base version. Commits
    /// writing more than `syncedPagesThreshold` bytes sync the pages before the header instead.
    ///
    /// - Throws: an I/O error; the file and the database are then as they were before the
    ///   transaction, and the transaction is over.
    @discardableResult
    package func commit() throws -> CommitResult {
        try commit(pinning: false, whenDurable: nil).0
    }

    /// Commits as `commit()` does and returns a snapshot of the version produced, pinned
    /// before the write lock is released: no second look at the file is needed to read it.
    ///
    /// With `whenDurable`, the commit may join the process's commit group instead of writing
    /// the header and syncing (see `CommitGroup`): it returns once its pages are written,
    /// keeps the write lock for the group, and `whenDurable` is called when the group is
    /// durable (nil) or lost (the error). Otherwise the commit is durable when this returns,
    /// and `whenDurable` is called with nil before it does. Whoever commits into a group must
    /// see to its end: `Database.commitOpenGroup()` when no other writer follows.
    package func commitAndSnapshot(whenDurable: (@Sendable ((any Error)?) -> Void)? = nil) throws -> (CommitResult, Snapshot) {
        let (result, snapshot) = try commit(pinning: true, whenDurable: whenDurable)
        return (result, snapshot!)
    }

    private func commit(pinning: Bool, whenDurable: (@Sendable ((any Error)?) -> Void)?) throws -> (CommitResult, Snapshot?) {
        require(isActive, "this write transaction has already ended; begin a new one")
        defer {
            if isActive { end() }
        }
        for table in tables { try table.finalizeIndexes() }
        // Pages written ahead are all in the file from here, or none is used.
        space.stopEarlyPageWrites()
        // A small synchronous commit of rows goes to the redo log (see `LogEpoch`); any other
        // commit while an epoch is open is its checkpoint, writing what the logged ones held
        // in memory.
        let shared = database.shared
        var epoch = shared.epoch.withLock { $0 }
        if whenDurable == nil, !joinedGroup, database.logsCommits, space.writtenBytes == 0,
           let record = redo.record, !record.operations.isEmpty {
            let payload = record.encoded()
            // Another process waiting to open the file is noticed by the epoch's watcher,
            // which asks for a checkpoint.
            if payload.count <= LogEpoch.largestRecord, !shared.checkpointRequested.withLock({ $0 }) {
                if epoch == nil { epoch = try shared.beginEpoch(base: baseHeader) }
                if let epoch, !epoch.isFull(forRecordOf: payload.count) {
                    space.releaseUnkeptEarlyPageWrites()
                    return try commitToLog(epoch, payload: payload, pinning: pinning)
                }
            }
        }
        if let epoch { try materialize(epoch) }
        let dirtyTables = tables.filter { $0.isModified || $0.rowTree.isModified }
        // Every page of the commit goes into one extent set aside now, sized exactly: the tree
        // pages (encoded ahead), the catalog, the commit record, and the free list, which
        // takes whatever the extent has left so that the whole extent is freed as one later.
        let prepared = dirtyTables.reduce((bytes: UInt64(0), pages: 0)) { total, table in
            let part = table.prepareFlush()
            return (total.bytes + part.bytes, total.pages + part.pages)
        }
        space.releaseUnkeptEarlyPageWrites()
        // The catalog before the flush sets its tables' new roots, with 4 bytes per table of
        // room for counts that grow (a page past the reservation is placed on its own).
        var catalogPage = PageCodec.encodeUncompressed(kind: .catalog, capacity: 256) { catalog.encode(into: &$0) }
        let catalogBound = catalogPage.count + 4 * catalog.tables.count
        let recordBound = PageCodec.headerSize + CommitRecord.encodedSize(pageCount: space.written.count + prepared.pages + 2)
        let listBound = PageCodec.headerSize + space.freeSpace.encodedSize + 12 + 16 * (space.freed.count + 4)
        space.reserve(Int(prepared.bytes) + [catalogBound, recordBound, listBound].reduce(0) { $0 + Int(FreeSpace.rounded(UInt64($1))) })
        for table in dirtyTables {
            catalog.tables[table.name] = try table.flush()
        }
        let changed = catalog != base.catalog || !space.freed.isEmpty
        guard changed else {
            space.releaseReservation()
            // An epoch whose first record failed has nothing to write: the file holds its base.
            if epoch != nil { shared.endEpoch() }
            // Nothing to make durable: the base version is (or becomes, with its group).
            if let whenDurable {
                if joinedGroup { database.shared.waitForGroup(whenDurable) } else { whenDurable(nil) }
            }
            end()
            return (CommitResult(version: base.version, changeset: recorder.changeset, pageBytes: 0), pinning ? base : nil)
        }

        // A checkpoint of its own writes the newest logged version as it is, under its number:
        // readers of this process already see that version, and no change happened.
        let keepsVersion = isCheckpointOnly && epoch != nil
        let version = keepsVersion ? base.version : base.version + 1
        catalogPage = PageCodec.encodeUncompressed(kind: .catalog, capacity: catalogPage.count) { catalog.encode(into: &$0) }
        let catalogRef = try space.writeStored(&catalogPage)
        space.free(baseHeader.catalog)
        space.free(baseHeader.freeList)
        space.free(baseHeader.commitRecord)
        space.freeSpace.retire(space.freed, atVersion: version)

        // Small commits sync once, with a record of their pages that opening checks; large ones
        // sync their pages before the header, so opening never has to read them back.
        // Only pages the new version references go in the record: one written and freed again
        // within this transaction (an overflow value replaced twice) may be reused once the
        // version after this one is committed, and must not make this commit look incomplete.
        // In a group, the record also lists the group's earlier pages this version still uses.
        let freedHere = Set(space.freed.map(\.offset))
        let carried = joinedGroup ? database.shared.state.withLock { $0.group?.pages ?? [] } : []
        let pages = (carried + space.written).filter { !freedHere.contains($0.offset) }
        let syncPagesFirst = space.writtenBytes > WriteTransaction.syncedPagesThreshold
        let groupIsFull = joinedGroup && database.shared.state.withLock { ($0.group?.commits ?? 0) + 1 >= CommitGroup.maximumCommits }
        // A checkpoint ends its epoch at once, so it does not wait for a group.
        let grouping = whenDurable != nil && !syncPagesFirst && !groupIsFull && epoch == nil
        let recordSize = CommitRecord.encodedSize(pageCount: pages.count + 1)
        let recordOffset = syncPagesFirst ? 0 : space.allocate(PageCodec.headerSize + recordSize)
        // The free list describes itself as allocated: size it first (with room for one more
        // extent, should the reservation's remainder return), allocate it, and pad the
        // encoding to the size taken. Fixed-width fields keep the size predictable.
        let listNeeds = space.freeSpace.encodedSize + 16
        let listOffset: UInt64
        let listSize: Int
        if let rest = space.takeRestOfReservation(minimum: PageCodec.headerSize + listNeeds) {
            (listOffset, listSize) = (rest.offset, rest.length - PageCodec.headerSize)
        } else {
            space.releaseReservation()
            (listOffset, listSize) = (space.allocate(PageCodec.headerSize + listNeeds), listNeeds)
        }
        let freeSpace = space.freeSpace
        var listPage = PageCodec.encodeUncompressed(kind: .freeList, capacity: listSize) { freeSpace.encode(paddedTo: listSize, into: &$0) }
        let listRef = try space.writePage(&listPage, at: listOffset)
        var recordRef = PageRef.null
        if !syncPagesFirst {
            var recordPage = PageCodec.encodeUncompressed(kind: .commitRecord, capacity: CommitRecord.encodedSize(pageCount: pages.count + 1)) {
                CommitRecord.encode(pages + [listRef], into: &$0)
            }
            recordRef = try space.writePage(&recordPage, at: recordOffset)
        }
        let file = base.store.file
        // Zero the space just past the data, so that the next commits overwrite written blocks
        // instead of filling holes (see `PosixFile.prepareForWriting`). Nothing uses it: every
        // version's pages lie below `end`, and this transaction holds the write lock.
        try file.prepareForWriting(freeSpace.end..<(freeSpace.end + WriteTransaction.preparedTailBytes))
        try space.flush()
        if syncPagesFirst { try file.sync() }

        let header = FileHeader(version: version, catalog: catalogRef, freeList: listRef, commitRecord: recordRef, end: freeSpace.end, fileID: baseHeader.fileID)
        // The changeset is recorded before the header is written: a handle of this process
        // that finds the new header on disk (as `refreshFromDisk` does) must find its
        // changeset too, or it would compute the change again from the trees. Only this
        // transaction, holding the write lock, can produce `version`.
        let result = CommitResult(version: version, changeset: recorder.changeset, pageBytes: UInt64(space.writtenBytes))
        if !keepsVersion {
            database.shared.state.withLock { $0.remember(result) }
        }

        if grouping, let whenDurable {
            let opening = joinedGroup ? nil : (durable: baseHeader, slot: durableSlot, lock: database.writeLock)
            let pin = database.shared.addToGroup(
                opening: opening, newest: header, catalog: catalog, freeSpace: freeSpace,
                pages: pages + [listRef, recordRef], waiter: whenDurable)
            // The file's lock and the turn now belong to the group.
            require(joinedGroup || holdsFileLock, "a commit group opened by a writer without the file's write lock")
            ownsLock = false
            isActive = false
            if opening != nil { database.shared.writers.signal() }
            return (result, pinning ? Snapshot(version: version, catalog: catalog, store: database.shared.store, pin: pin) : nil)
        }

        let slot = FileHeader.slot(replacingTheOneBeside: durableSlot)
        let groupLock = joinedGroup ? database.shared.state.withLock { $0.group?.lock } : nil
        do {
            try header.write(to: file, slot: slot)
            try file.sync()
        } catch {
            // The commit is reported as failed, so the file must not keep it: erase the slot
            // (the other slot holds the durable version) before giving the error to the caller,
            // with the group this commit would have ended.
            try? FileHeader.erase(slot: slot, of: file)
            if !keepsVersion {
                database.shared.state.withLock { committed in
                    committed.recentCommits.removeAll { $0.version == version }
                }
            }
            if joinedGroup {
                let waiters = database.shared.abandonGroup()
                isActive = false
                groupLock?.unlock()
                for waiter in waiters { waiter(error) }
            }
            throw error
        }
        // Snapshots of the version a checkpoint keeps still read its held nodes.
        shared.retiredHeldNodes.withLock { $0.retire(space.freedInMemory, atVersion: keepsVersion ? version + 1 : version) }
        let waiters = shared.publishDurable(header, slot: slot, catalog: catalog, freeSpace: freeSpace)
        // The checkpoint is durable: the log's records are stale (their base is no longer the
        // file's newest header), and other processes may open the file.
        if epoch != nil { shared.endEpoch() }
        shared.releaseRetiredHeldNodes()
        shared.lastCommitTime.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        let snapshot = pinning ? pinnedLatest() : nil
        if joinedGroup {
            isActive = false
            groupLock?.unlock()
        }
        for waiter in waiters { waiter(nil) }
        whenDurable?(nil)
        return (result, snapshot)
    }

    /// Commits by keeping the changed nodes in memory and appending the record `payload` to the
    /// redo log, synced (see `LogEpoch`).
    ///
    /// - Throws: an I/O error writing or syncing the record; the log then ends before it and
    ///   nothing of the transaction is kept.
    private func commitToLog(_ epoch: LogEpoch, payload: [UInt8], pinning: Bool) throws -> (CommitResult, Snapshot?) {
        let version = base.version + 1
        let shared = database.shared
        // First what needs no durable record: the nodes of the commit go into memory, under
        // references no reader can reach before the state below is published, and nodes
        // earlier commits retired are released (which depends on no part of this one).
        for table in tables where table.isModified || table.rowTree.isModified {
            catalog.tables[table.name] = table.flushToMemory()
        }
        // Their roots are in the catalog; whatever else they kept can go now too.
        tables.removeAll()
        shared.releaseRetiredHeldNodes()
        let result = CommitResult(version: version, changeset: recorder.changeset, pageBytes: 0)
        // A header for this process only: no catalog page exists; the catalog is kept beside it.
        let header = FileHeader(version: version, catalog: .null, freeList: .null, commitRecord: .null, end: space.freeSpace.end, fileID: baseHeader.fileID)
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
        let snapshot = shared.publish(result, header: header, catalog: catalog, freeSpace: space.freeSpace, pinning: pinning)
            .map { Snapshot(version: version, catalog: catalog, store: shared.store, pin: $0) }
        end()
        return (result, snapshot)
    }

    /// Makes every node the logged commits hold in memory dirty, and frees what they replaced
    /// on disk and the last checkpoint's own pages into this transaction, so that its commit
    /// is the next checkpoint.
    private func materialize(_ epoch: LogEpoch) throws {
        for name in catalog.tables.keys {
            let roots = catalog.tables[name]!
            guard roots.rows.isSynthetic || roots.indexes.contains(where: { $0.root.isSynthetic }) else { continue }
            try tableIfPresent(name)!.makeHeldNodesDirty()
        }
        // Kept by the epoch until the checkpoint is durable: a checkpoint that fails is tried
        // again by a later transaction, which frees them anew.
        space.free(epoch.freedOnDisk)
        // This transaction's base is then a logged version, whose header names no pages: the
        // checkpoint's pages are the ones this commit replaces.
        if epoch.commits > 0 {
            space.free(epoch.checkpoint.catalog)
            space.free(epoch.checkpoint.freeList)
            space.free(epoch.checkpoint.commitRecord)
        }
    }

    /// The newest version, pinned: still under the write lock, the one this process knows.
    private func pinnedLatest() -> Snapshot {
        let (header, catalog, pin) = database.shared.pinKnownLatest()
        return Snapshot(version: header.version, catalog: catalog, store: database.shared.store, pin: pin)
    }

    /// Commits a transaction that changed nothing as a checkpoint: the nodes the redo log's
    /// epoch holds in memory are written into the file, under the newest version's number
    /// (see `LogEpoch`). Without an epoch, nothing is written.
    package func commitCheckpoint() throws {
        require(tables.allSatisfy { !$0.isModified && !$0.rowTree.isModified } && catalog == base.catalog,
                     "commitCheckpoint() is for a transaction that changed nothing; commit() it instead")
        isCheckpointOnly = true
        try commit()
    }

    /// Drops every change. Pages the transaction wrote sit in space the committed version
    /// considers free, so there is nothing to undo on disk.
    package func rollback() {
        guard isActive else { return }
        end()
    }
}
