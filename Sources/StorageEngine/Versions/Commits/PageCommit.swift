/// Writes a commit's pages into space no committed version uses: the changed tree pages, the
/// catalog, the free list and the commit record (or, for a large commit, syncs the pages
/// instead of recording them). The header is left to `GroupedCommit` or `HeaderCommit`.
struct PageCommit {
    private let transaction: WriteTransaction
    private let epoch: LogEpoch?
    private let mayJoinGroup: Bool

    /// The page writes of `transaction`, the checkpoint of `epoch` if one is open;
    /// `mayJoinGroup` when the caller takes its durability from the commit group.
    init(of transaction: WriteTransaction, epoch: LogEpoch?, mayJoinGroup: Bool) {
        self.transaction = transaction
        self.epoch = epoch
        self.mayJoinGroup = mayJoinGroup
    }

    /// Writes the pages; nil, with nothing written, if the transaction changed nothing.
    func write() throws -> WrittenVersion? {
        let space = transaction.space
        let base = transaction.base
        let baseHeader = transaction.baseHeader
        let shared = transaction.database.shared
        let dirtyTables = transaction.tables.filter { $0.isModified || $0.rowTree.isModified }
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
        var catalogPage = PageCodec.encodeUncompressed(kind: .catalog, capacity: 256) { transaction.catalog.encode(into: &$0) }
        let catalogBound = space.sealedSize(catalogPage) + 4 * transaction.catalog.tables.count
        let recordBound = space.pageOverhead + CommitRecord.encodedSize(pageCount: space.written.count + prepared.pages + 2)
        let listBound = space.pageOverhead + space.freeSpace.encodedSize + 12 + 16 * (space.freed.count + 4)
        space.reserve(Int(prepared.bytes) + [catalogBound, recordBound, listBound].reduce(0) { $0 + Int(FreeSpace.rounded(UInt64($1))) })
        for table in dirtyTables {
            transaction.catalog.tables[table.name] = try table.flush()
        }
        guard transaction.catalog != base.catalog || !space.freed.isEmpty else {
            space.releaseReservation()
            return nil
        }

        // A checkpoint of its own writes the newest logged version as it is, under its number:
        // readers of this process already see that version, and no change happened.
        let keepsVersion = transaction.isCheckpointOnly && epoch != nil
        let version = keepsVersion ? base.version : base.version + 1
        let catalog = transaction.catalog
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
        let carried = transaction.joinedGroup ? shared.groupPages : []
        let pages = (carried + space.written).filter { !freedHere.contains($0.offset) }
        let syncPagesFirst = space.writtenBytes > WriteTransaction.syncedPagesThreshold
        let groupIsFull = transaction.joinedGroup && shared.groupIsFull
        // A checkpoint ends its epoch at once, so it does not wait for a group.
        let joinsGroup = mayJoinGroup && !syncPagesFirst && !groupIsFull && epoch == nil
        let recordSize = CommitRecord.encodedSize(pageCount: pages.count + 1)
        let recordOffset = syncPagesFirst ? 0 : space.allocate(space.pageOverhead + recordSize)
        let (listRef, freeSpace) = try writeFreeList()
        var recordRef = PageRef.null
        if !syncPagesFirst {
            var recordPage = PageCodec.encodeUncompressed(kind: .commitRecord, capacity: recordSize) {
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
        let result = CommitResult(version: version, changeset: transaction.recorder.changeset, pageBytes: UInt64(space.writtenBytes))
        if !keepsVersion {
            shared.remember(result)
        }
        return WrittenVersion(header: header, result: result, pages: pages, freeList: listRef, commitRecord: recordRef,
                              freeSpace: freeSpace, keepsVersion: keepsVersion, epoch: epoch, joinsGroup: joinsGroup)
    }

    /// Writes the free list, which describes itself as allocated: sized first (with room for
    /// one more extent, should the reservation's remainder return), allocated, and its
    /// encoding padded to the size taken. Fixed-width fields keep the size predictable.
    /// Returns the list's page and the free space it describes, the version's.
    private func writeFreeList() throws -> (PageRef, FreeSpace) {
        let space = transaction.space
        let listNeeds = space.freeSpace.encodedSize + 16
        let listOffset: UInt64
        let listSize: Int
        if let rest = space.takeRestOfReservation(minimum: space.pageOverhead + listNeeds) {
            (listOffset, listSize) = (rest.offset, rest.length - space.pageOverhead)
        } else {
            space.releaseReservation()
            (listOffset, listSize) = (space.allocate(space.pageOverhead + listNeeds), listNeeds)
        }
        let freeSpace = space.freeSpace
        var listPage = PageCodec.encodeUncompressed(kind: .freeList, capacity: listSize) { freeSpace.encode(paddedTo: listSize, into: &$0) }
        return (try space.writePage(&listPage, at: listOffset), freeSpace)
    }
}
