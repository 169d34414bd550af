/// Writes the pages of one commit, merging pages at adjacent offsets into one write.
///
/// Commits allocate mostly from the end of the file or from large free extents, so consecutive
/// pages are usually adjacent; one system call per run instead of per page is what makes a bulk
/// insert of a million rows cost a few hundred writes.
///
/// A run keeps its pages as they are and hands them to the file together
/// (`FileIO.write(gathering:at:)`, `pwritev` for a file on disk). It used to copy them into one
/// buffer first: for a bulk insert, megabytes copied into memory fresh from the kernel, page
/// faults and all.
package final class PageWriter {
    private let file: any FileIO
    // Exclusivity is unchecked: a writer belongs to one transaction on one thread, and its
    // state was checked by the runtime on every page.
    @exclusivity(unchecked) private var runStart: UInt64 = 0
    /// The run's pages in order, each followed by `padding` zeros.
    @exclusivity(unchecked) private var run: [(bytes: [UInt8], padding: Int)] = []
    @exclusivity(unchecked) private var runBytes = 0
    /// Writes that did not continue the run, kept until `flush`: a commit fills the pages it
    /// allocated first (the commit record) after the ones that follow them (the free list), and
    /// those usually join the run once put in order.
    @exclusivity(unchecked) private var pending: [(offset: UInt64, bytes: [UInt8])] = []
    @exclusivity(unchecked) private var pendingBytes = 0
    private static let maxRunBytes = 4 << 20
    /// At most this many bytes wait in `pending`; a write that does not fit ends the run.
    private static let maxPendingBytes = 64 << 10
    /// What pads a page to the allocation unit (`FreeSpace.granularity`), shared by every run.
    private static let zeros = [UInt8](repeating: 0, count: Int(FreeSpace.granularity))

    package init(file: any FileIO) {
        self.file = file
    }

    /// Makes room for about `bytes` of pages, so that the run does not grow by copying itself.
    package func reserveCapacity(_ bytes: Int) {
        run.reserveCapacity(min(bytes, PageWriter.maxRunBytes) / 4096 + 4)
    }

    /// Buffers `stored` for `offset`, followed by zeros up to `length` bytes.
    package func write(_ stored: [UInt8], at offset: UInt64, paddedTo length: Int) throws {
        require(length - stored.count <= PageWriter.zeros.count, "pages are padded to the allocation unit only")
        if !run.isEmpty && (offset != runStart + UInt64(runBytes) || runBytes >= PageWriter.maxRunBytes) {
            if pendingBytes + length <= PageWriter.maxPendingBytes && runBytes < PageWriter.maxRunBytes {
                var bytes = stored
                if length > stored.count { bytes.append(contentsOf: repeatElement(0, count: length - stored.count)) }
                pending.append((offset, bytes))
                pendingBytes += bytes.count
                return
            }
            try flush()
        }
        if run.isEmpty { runStart = offset }
        run.append((stored, max(0, length - stored.count)))
        runBytes += max(length, stored.count)
    }

    /// Issues the pending run and the writes kept aside, each joining the run if it continues
    /// it once they are in offset order. Called before the commit's first sync.
    func flush() throws {
        defer {
            run.removeAll(keepingCapacity: true)
            runBytes = 0
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
        }
        pending.sort { $0.offset < $1.offset }
        var separate: [(offset: UInt64, bytes: [UInt8])] = []
        for write in pending {
            if !run.isEmpty && write.offset == runStart + UInt64(runBytes) {
                run.append((write.bytes, 0))
                runBytes += write.bytes.count
            } else {
                separate.append(write)
            }
        }
        if !run.isEmpty { try writeRun() }
        for write in separate { try file.write(write.bytes, at: write.offset) }
    }

    /// Writes the run's pages and padding in one call, pointing at the arrays that hold them.
    private func writeRun() throws {
        var parts: [UnsafeRawBufferPointer] = []
        parts.reserveCapacity(run.count * 2)
        // The arrays stay alive (in `run` and `zeros`) until the write returns; their buffers
        // are taken as they are, and none of them is changed meanwhile.
        try PageWriter.zeros.withUnsafeBytes { zeros in
            for page in run {
                page.bytes.withUnsafeBytes { parts.append($0) }
                if page.padding > 0 { parts.append(UnsafeRawBufferPointer(rebasing: zeros[..<page.padding])) }
            }
            try file.write(gathering: parts, at: runStart)
        }
    }
}
