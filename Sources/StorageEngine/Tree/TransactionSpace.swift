/// The allocator of one write transaction: where its new pages go and which old ones it frees.
///
/// New pages only ever land in space `FreeSpace` calls free, which no committed version can see,
/// so writing them can never damage the version a crash falls back to (invariant 1). Pages this
/// transaction stops using are collected in `freed` and retired at the new version on commit.
package final class TransactionSpace {
    package let store: PageStore
    var freeSpace: FreeSpace
    package private(set) var freed: [Extent] = []
    /// Nodes held in memory (synthetic references) this transaction stopped using: not space
    /// of the file, released once no version reaches them (see `PageStore.holdInMemory`).
    private(set) var freedInMemory: [PageRef] = []
    /// Nodes this transaction's commit holds in memory (`MutableTree.flushToMemory`): released
    /// again if the commit fails after holding them.
    var heldInMemory: [PageRef] = []
    /// Every page this transaction wrote, for its commit record.
    package private(set) var written: [PageRef] = []
    private(set) var writtenBytes = 0
    private let writer: PageWriter
    /// Space set aside for the commit's pages, handed out front to back (see `reserve`).
    private var reservation: Range<UInt64>?
    /// Pages written ahead of the commit (see `EarlyPageWrites`), once a tree has some: the
    /// space promised to the pages handed over and the space granted for them, and whether
    /// what was written is in the file once writing ahead stopped.
    private var earlyWrites: EarlyPageWrites?
    private var earlyPromised: UInt64 = 0
    private var earlyGranted: UInt64 = 0
    private var earlyWritesIntact = false
    /// The pages written ahead that the commit references, by offset.
    private var earlyKept: Set<UInt64> = []

    /// The version the transaction's commit makes (0 when unknown): what a leaf it encodes
    /// remembers (see `LeafCompression.isHot`).
    let version: UInt64

    package init(store: PageStore, freeSpace: FreeSpace, version: UInt64 = 0) {
        self.store = store
        self.freeSpace = freeSpace
        self.version = version
        self.writer = PageWriter(file: store.file)
    }

    /// Marks a page the transaction no longer references.
    package func free(_ ref: PageRef) {
        guard !ref.isNull else { return }
        if ref.isSynthetic {
            freedInMemory.append(ref)
        } else {
            freed.append(Extent(ref))
        }
    }

    /// Marks extents freed by earlier transactions as freed by this one, to be retired at its
    /// version (the pages logged commits replaced, at the checkpoint).
    package func free(_ extents: [Extent]) {
        freed.append(contentsOf: extents)
    }

    /// Places, seals and writes (buffered until `flush()`) an encoded page.
    func writeStored(_ stored: inout [UInt8]) throws -> PageRef {
        let ref = try writePage(&stored, at: allocate(sealedSize(stored)))
        record(ref)
        return ref
    }

    /// Places, seals and writes (buffered until `flushWrites()`) the page of a leaf spilled
    /// before the commit (see MutableTree+Spill), outside the commit's reservation.
    func writeSpilled(_ stored: inout [UInt8]) throws -> PageRef {
        let ref = try writePage(&stored, at: freeSpace.allocate(sealedSize(stored)))
        record(ref)
        return ref
    }

    /// Issues the buffered writes, so that the pages are in the file before they are read back.
    func flushWrites() throws {
        try writer.flush()
    }

    /// Writes an overflow page at once (it may be read back before the commit).
    func writeOverflow(_ value: UnsafeRawBufferPointer) throws -> PageRef {
        try writer.flush()
        var stored = PageCodec.encode(kind: .overflow, raw: value)
        let offset = freeSpace.allocate(sealedSize(stored))
        let ref = store.seal(&stored, at: offset)
        try store.file.write(stored, at: offset)
        record(ref)
        return ref
    }

    /// Sets aside one extent of at least `bytes` for the pages written next, so that a commit's
    /// pages land side by side and reach the disk in one write instead of one per page (which
    /// is what a durable single-row commit spends its time on).
    package func reserve(_ bytes: Int) {
        releaseReservation()
        // Whole 4 KiB blocks: the next commits ask for about as much, so the extent this one
        // leaves behind once its pages are freed fits them, and steady commits rewrite blocks
        // the file system has already allocated instead of growing the file. Aligned to a
        // block, so that the pages touch as few blocks as they fill: each block more is more
        // for a small commit's sync to write.
        let size = (UInt64(bytes) + 4095) / 4096 * 4096
        let offset = freeSpace.allocate(Int(size), alignment: 4096)
        reservation = offset..<(offset + size)
        writer.reserveCapacity(Int(size))
    }

    /// Returns the unused part of the reservation to the free space.
    func releaseReservation() {
        guard let range = reservation else { return }
        reservation = nil
        if !range.isEmpty { freeSpace.release(Extent(offset: range.lowerBound, length: UInt64(range.count))) }
    }

    /// Space for a page of `length` bytes: from the reservation while it lasts.
    package func allocate(_ length: Int) -> UInt64 {
        let size = FreeSpace.rounded(UInt64(length))
        if let range = reservation, UInt64(range.count) >= size {
            reservation = (range.lowerBound + size)..<range.upperBound
            return range.lowerBound
        }
        return freeSpace.allocate(length)
    }

    // MARK: Pages written ahead

    /// Where a full leaf's page of at most `bytes` can be written ahead of the commit, with
    /// space granted for it (in extents of `EarlyPageWrites.extentBytes`, from the free space).
    func earlyPageWrites(forPageOfAtMost bytes: Int) -> EarlyPageWrites {
        let writes = earlyWrites ?? EarlyPageWrites(file: store.file, cipher: store.cipher)
        earlyWrites = writes
        earlyPromised += FreeSpace.rounded(UInt64(bytes + store.pageOverhead - PageCodec.headerSize))
        if earlyPromised > earlyGranted {
            let size = max(EarlyPageWrites.extentBytes, (earlyPromised - earlyGranted + 4095) / 4096 * 4096)
            let offset = freeSpace.allocate(Int(size), alignment: 4096)
            writes.grant(offset..<(offset + size))
            earlyGranted += size
        }
        return writes
    }

    /// Ends writing ahead: the last pages are written, no page is from now on. Called when
    /// the commit begins and when the transaction ends, whichever comes first.
    func stopEarlyPageWrites() {
        guard let earlyWrites else { return }
        earlyWritesIntact = earlyWrites.close()
    }

    /// Takes the page `ref`, written ahead, for the commit; false if the writes ahead failed,
    /// when the leaf must be written again. Writing ahead stops first, if it has not yet.
    func keepWrittenAhead(_ ref: PageRef) -> Bool {
        stopEarlyPageWrites()
        guard earlyWritesIntact else { return false }
        earlyKept.insert(ref.offset)
        return true
    }

    /// Gives back to the free space whatever was granted for pages written ahead that the commit
    /// does not reference (leaves changed after they were written, space never filled).
    func releaseUnkeptEarlyPageWrites() {
        guard let earlyWrites else { return }
        stopEarlyPageWrites()
        for extent in earlyWrites.unusedSpace(keeping: earlyKept) { freeSpace.release(extent) }
        self.earlyWrites = nil
    }

    /// Counts a page written ahead and kept as one this transaction wrote.
    func recordWrittenAhead(_ ref: PageRef) {
        record(ref)
    }

    private func record(_ ref: PageRef) {
        written.append(ref)
        writtenBytes += Int(ref.length)
    }

    /// Writes a page at an offset the caller allocated (pages whose size must be known before
    /// their contents are: the free list and the commit record).
    func writePage(_ stored: inout [UInt8], at offset: UInt64) throws -> PageRef {
        let ref = store.seal(&stored, at: offset)
        // Padded to the allocation unit so that neighbouring pages merge into one write.
        try writer.write(stored, at: offset, paddedTo: Int(FreeSpace.rounded(UInt64(stored.count))))
        return ref
    }

    /// The size of `encoded` (a page `PageCodec` made) once sealed: larger in an encrypted file.
    func sealedSize(_ encoded: [UInt8]) -> Int {
        encoded.count + store.pageOverhead - PageCodec.headerSize
    }

    /// What a stored page adds to its body (see `PageStore.pageOverhead`).
    var pageOverhead: Int { store.pageOverhead }

    /// Hands out everything left of the reservation, if at least `minimum` bytes are left.
    func takeRestOfReservation(minimum: Int) -> (offset: UInt64, length: Int)? {
        guard let range = reservation, range.count >= minimum else { return nil }
        reservation = nil
        return (range.lowerBound, range.count)
    }

    /// Issues every buffered write.
    func flush() throws {
        try writer.flush()
    }
}
