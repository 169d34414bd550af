/// The one write transaction of a database at a time: copy-on-write changes to the newest
/// version, made durable by `commit()` or dropped by `rollback()`.
///
/// Nothing a transaction does is visible to anyone, and nothing it writes lands where a
/// committed version can see it, until the header flip at the end of `commit()`.
package final class WriteTransaction {
    /// The version this transaction started from; pinned until the transaction ends.
    package let base: Snapshot
    let database: Database
    let space: TransactionSpace
    let recorder = ChangeRecorder()
    private let redo = RedoRecorder()
    var catalog: Catalog
    /// The tables opened so far, found by a search of their names: a transaction opens a few,
    /// and comparing a name costs less than hashing it.
    @exclusivity(unchecked) var tables: [TableWriter] = []
    let baseHeader: FileHeader
    /// The slot of the newest durable header, which this commit must not overwrite.
    let durableSlot: Int
    /// Whether the transaction started inside the process's commit group, whose lock it uses.
    let joinedGroup: Bool
    /// Whether ending the transaction releases the write lock: it took the lock itself and did
    /// not hand it to a commit group.
    var ownsLock: Bool
    /// Whether it took the file's write lock, besides the process's writer lock (not while
    /// the process logs; see `Database.tryBeginWrite`).
    let holdsFileLock: Bool
    var isActive = true
    /// Set by `commitCheckpoint()`.
    private(set) var isCheckpointOnly = false

    /// Commits writing more page bytes than this sync twice instead of recording their pages.
    static let syncedPagesThreshold = 4 << 20

    init(database: Database, header: FileHeader, base: Snapshot, freeSpace: FreeSpace, durableSlot: Int, joinedGroup: Bool, holdsFileLock: Bool) {
        self.holdsFileLock = holdsFileLock
        self.database = database
        self.base = base
        self.baseHeader = header
        self.durableSlot = durableSlot
        self.joinedGroup = joinedGroup
        self.ownsLock = !joinedGroup
        self.catalog = base.catalog
        self.space = TransactionSpace(store: base.store, freeSpace: freeSpace, version: base.version + 1)
    }

    deinit {
        if isActive { end() }
    }

    /// Gives up what the transaction holds: the write lock, or its turn in the group.
    func end() {
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

    /// Stops recording which rows change, and forgets what was recorded: the commit's
    /// changeset then lists no row. For a transaction whose rows no handle observes one by one
    /// (a migration: no handle with the old schema may read the new rows, and none with the new
    /// one exists yet), where a record per row of a rewritten table would cost more memory than
    /// the table's pages.
    package func stopRecordingRowChanges() { recorder.stopRecording() }

    /// The row changes made so far as a redo record, or nil if the transaction did something a
    /// record cannot hold (see `RedoRecord`).
    var redoRecord: RedoRecord? { redo.record }

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

    /// Commits one of four ways, each a type of its own: to the redo log (`LoggedCommit`); or
    /// by writing the pages (`PageCommit`), then either joining the process's commit group
    /// (`GroupedCommit`) or writing the header and syncing (`HeaderCommit`). A commit that
    /// changed nothing writes nothing (`commitNothing`).
    private func commit(pinning: Bool, whenDurable: (@Sendable ((any Error)?) -> Void)?) throws -> (CommitResult, Snapshot?) {
        require(isActive, "this write transaction has already ended; begin a new one")
        defer {
            if isActive { end() }
        }
        for table in tables { try table.finalizeIndexes() }
        // Pages written ahead are all in the file from here, or none is used.
        space.stopEarlyPageWrites()
        var epoch = database.shared.epoch.withLock { $0 }
        if whenDurable == nil, let logged = try LoggedCommit(of: self, record: redo.record, epoch: &epoch) {
            return try logged.commit(pinning: pinning)
        }
        if let epoch { try materialize(epoch) }
        let pages = PageCommit(of: self, epoch: epoch, mayJoinGroup: whenDurable != nil)
        guard let written = try pages.write() else {
            return commitNothing(epoch: epoch, pinning: pinning, whenDurable: whenDurable)
        }
        if written.joinsGroup, let whenDurable {
            return GroupedCommit(of: self, written: written).commit(pinning: pinning, whenDurable: whenDurable)
        }
        return try HeaderCommit(of: self, written: written).commit(pinning: pinning, whenDurable: whenDurable)
    }

    /// Ends a transaction that changed nothing: the base version is (or becomes, with its
    /// group) durable, and an epoch whose first record failed is over, the file holding its base.
    private func commitNothing(epoch: LogEpoch?, pinning: Bool, whenDurable: (@Sendable ((any Error)?) -> Void)?) -> (CommitResult, Snapshot?) {
        if epoch != nil { database.shared.endEpoch() }
        if let whenDurable {
            if joinedGroup { database.shared.waitForGroup(whenDurable) } else { whenDurable(nil) }
        }
        end()
        return (CommitResult(version: base.version, changeset: recorder.changeset, pageBytes: 0), pinning ? base : nil)
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
    func pinnedLatest() -> Snapshot {
        let (header, catalog, pin) = database.shared.pinKnownLatest()
        return Snapshot(version: header.version, catalog: catalog, store: database.shared.store, pin: pin)
    }

    /// Commits a transaction that changed nothing as a checkpoint: the nodes the redo log's
    /// epoch holds in memory are written into the file, under the newest version's number
    /// (see `LogEpoch`). Without an epoch, nothing is written.
    func commitCheckpoint() throws {
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
