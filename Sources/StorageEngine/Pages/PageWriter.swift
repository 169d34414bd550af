/// Writes the pages of one commit, merging pages at adjacent offsets into one `pwrite`.
///
/// Commits allocate mostly from the end of the file or from large free extents, so consecutive
/// pages are usually adjacent; one system call per run instead of per page is what makes a bulk
/// insert of a million rows cost a few hundred writes.
package final class PageWriter {
    private let file: any FileIO
    private var runStart: UInt64 = 0
    private var run: [UInt8] = []
    /// Writes that did not continue the run, kept until `flush`: a commit fills the pages it
    /// allocated first (the commit record) after the ones that follow them (the free list), and
    /// those usually join the run once put in order.
    private var pending: [(offset: UInt64, bytes: [UInt8])] = []
    private var pendingBytes = 0
    private static let maxRunBytes = 4 << 20
    /// At most this many bytes wait in `pending`; a write that does not fit ends the run.
    private static let maxPendingBytes = 64 << 10

    package init(file: any FileIO) {
        self.file = file
    }

    /// Makes room for `bytes` of pages, so that the run does not grow by copying itself.
    package func reserveCapacity(_ bytes: Int) {
        run.reserveCapacity(min(bytes, PageWriter.maxRunBytes))
    }

    /// Buffers `stored` for `offset`, followed by zeros up to `length` bytes.
    package func write(_ stored: [UInt8], at offset: UInt64, paddedTo length: Int) throws {
        if !run.isEmpty && (offset != runStart + UInt64(run.count) || run.count >= PageWriter.maxRunBytes) {
            if pendingBytes + length <= PageWriter.maxPendingBytes && run.count < PageWriter.maxRunBytes {
                var bytes = stored
                if length > stored.count { bytes.append(contentsOf: repeatElement(0, count: length - stored.count)) }
                pending.append((offset, bytes))
                pendingBytes += bytes.count
                return
            }
            try flush()
        }
        if run.isEmpty { runStart = offset }
        run.append(contentsOf: stored)
        if length > stored.count { run.append(contentsOf: repeatElement(0, count: length - stored.count)) }
    }

    /// Issues the pending run and the writes kept aside, each joining the run if it continues
    /// it once they are in offset order. Called before the commit's first sync.
    package func flush() throws {
        // Written from the buffer itself, which then stays this writer's alone: emptied
        // keeping its capacity, it serves the next run without allocating.
        defer {
            run.removeAll(keepingCapacity: true)
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
        }
        pending.sort { $0.offset < $1.offset }
        var separate: [(offset: UInt64, bytes: [UInt8])] = []
        for write in pending {
            if !run.isEmpty && write.offset == runStart + UInt64(run.count) {
                run.append(contentsOf: write.bytes)
            } else {
                separate.append(write)
            }
        }
        if !run.isEmpty { try file.write(run, at: runStart) }
        for write in separate { try file.write(write.bytes, at: write.offset) }
    }
}
