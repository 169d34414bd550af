/// The pages of a bulk transaction's full leaves, written to the file before its commit by the
/// queue that encodes them (`EarlyLeafEncoding`), into space the transaction set aside.
///
/// A commit of 100,000 appended objects wrote its 5 MB of pages and then waited for the disk,
/// 6-7 ms with nothing else to do, after 35 ms of adds during which the disk was idle. Written
/// ahead, the pages are copied into the file and on their way to the disk while the adds go
/// on, so the commit writes only what changed last and waits for the tail.
///
/// The transaction grants extents (`grant`) ahead of the pages, on its own thread: it alone
/// allocates. The queue places each page at the next offset that fits (`place`), seals it
/// there, and gathers the pages into runs of adjacent pages, each written when it reaches
/// `runBytes` and then handed to the file to start writing back. `close` writes the last run
/// and refuses every page after it, so nothing reaches the file once the transaction has
/// stopped writing ahead: the space it did not use may be anyone's again. A page placed is in
/// the file only if no write failed (`close` says); after a failure the commit writes every
/// leaf as if nothing had been written ahead.
///
/// The space is free in every committed version (it came from `FreeSpace`), so writing it can
/// damage no version a crash falls back to (invariant 1); the transaction gives back, at
/// commit, every part of it its new version does not reference (`unusedSpace`).
final class EarlyPageWrites: Sendable {
    /// A run is written once it holds this much.
    static let runBytes = 256 << 10
    /// Room a run keeps past `runBytes` for the page that takes it over the limit: two of the
    /// largest leaves a tree writes (`TreeLayout.maxLeafBytes`, 8 KiB), which a layer below the
    /// trees cannot name.
    static let runSlack = 16 << 10
    /// The transaction grants space in extents of at least this size.
    static let extentBytes: UInt64 = 1 << 20

    private struct State: Sendable {
        /// The extents granted, in the order pages fill them.
        var extents: [Range<UInt64>] = []
        /// The extent pages go into now (`extents.count` when all are full), and the offset
        /// of the next page in it.
        var current = 0
        var next: UInt64 = 0
        var placed: [PageRef] = []
        /// The pages placed but not yet written, side by side with their padding, from `runStart`.
        var run: [UInt8] = []
        var runStart: UInt64 = 0
        var isClosed = false
        var failed = false
    }

    private let file: any FileIO
    /// What encrypts the pages, in an encrypted file.
    private let cipher: FileCipher?
    private let state = Locked(State())

    init(file: any FileIO, cipher: FileCipher?) {
        self.file = file
        self.cipher = cipher
    }

    /// Adds `extent` to the space pages are placed in: free space no version can see, which
    /// the transaction holds until it takes back what `unusedSpace` names.
    func grant(_ extent: Range<UInt64>) {
        state.withLock { state in
            if state.current == state.extents.count { state.next = extent.lowerBound }
            state.extents.append(extent)
        }
    }

    /// Seals `page` at the next offset with room for it and queues it to be written; nil, with
    /// nothing written, once closed, after a failed write, or without room.
    ///
    /// Called on the encoding queue. A run full enough is written before this returns, under
    /// the lock, so that `close` waits for it.
    func place(_ page: [UInt8]) -> PageRef? {
        state.withLock { state in
            guard !state.isClosed, !state.failed else { return nil }
            let size = FreeSpace.rounded(UInt64(page.count + PageCodec.overhead(cipher: cipher) - PageCodec.headerSize))
            while state.current < state.extents.count && state.extents[state.current].upperBound - state.next < size {
                state.current += 1
                if state.current < state.extents.count { state.next = state.extents[state.current].lowerBound }
            }
            guard state.current < state.extents.count else { return nil }
            let offset = state.next
            state.next += size
            if !state.run.isEmpty && offset != state.runStart + UInt64(state.run.count) { write(&state) }
            if state.run.isEmpty {
                state.runStart = offset
                state.run.reserveCapacity(EarlyPageWrites.runBytes + EarlyPageWrites.runSlack)
            }
            var sealed = page
            let ref = PageCodec.seal(&sealed, at: offset, cipher: cipher)
            state.run.append(contentsOf: sealed)
            state.run.append(contentsOf: repeatElement(0, count: Int(size) - sealed.count))
            state.placed.append(ref)
            if state.run.count >= EarlyPageWrites.runBytes { write(&state) }
            return ref
        }
    }

    /// Writes the run and asks the file to start writing it back; a failure voids every page.
    private func write(_ state: inout State) {
        defer { state.run.removeAll(keepingCapacity: true) }
        guard !state.failed else { return }
        let range = state.runStart..<(state.runStart + UInt64(state.run.count))
        do {
            try state.run.withUnsafeBytes { try file.write($0, at: range.lowerBound) }
            file.startWriteback(range)
        } catch {
            state.failed = true
        }
    }

    /// Writes the last run and refuses every page from now on; returns whether every page
    /// placed is in the file (written, not yet durable). Waits for a write under way.
    func close() -> Bool {
        state.withLock { state in
            if !state.isClosed {
                state.isClosed = true
                if !state.run.isEmpty { write(&state) }
            }
            return !state.failed
        }
    }

    /// The space granted that holds no page of `kept` (by offset): what the transaction gives
    /// back once closed. Every page, if a write failed.
    func unusedSpace(keeping kept: Set<UInt64>) -> [Extent] {
        state.withLock { state in
            require(state.isClosed, "close the early page writes before taking back their space")
            var unused: [Extent] = []
            var pages = state.placed.makeIterator()
            var page = pages.next()
            for extent in state.extents {
                // The pages of an extent come one after another in `placed`; a page not kept,
                // and whatever lies past the last page, is space to give back.
                var start = extent.lowerBound
                while let current = page, extent.contains(current.offset) {
                    if !state.failed && kept.contains(current.offset) {
                        if current.offset > start { unused.append(Extent(offset: start, length: current.offset - start)) }
                        start = current.offset + FreeSpace.rounded(UInt64(current.length))
                    }
                    page = pages.next()
                }
                if extent.upperBound > start { unused.append(Extent(offset: start, length: extent.upperBound - start)) }
            }
            return unused
        }
    }
}
