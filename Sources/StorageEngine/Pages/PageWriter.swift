/// Writes the pages of one commit, merging pages at adjacent offsets into one `pwrite`.
///
/// Commits allocate mostly from the end of the file or from large free extents, so consecutive
/// pages are usually adjacent; one system call per run instead of per page is what makes a bulk
/// insert of a million rows cost a few hundred writes.
package final class PageWriter {
    private let file: any FileIO
    private var runStart: UInt64 = 0
    private var run: [UInt8] = []
    private static let maxRunBytes = 4 << 20

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
            try flush()
        }
        if run.isEmpty { runStart = offset }
        run.append(contentsOf: stored)
        if length > stored.count { run.append(contentsOf: repeatElement(0, count: length - stored.count)) }
    }

    /// Issues the pending run. Called before the commit's first sync.
    package func flush() throws {
        guard !run.isEmpty else { return }
        // Written from the buffer itself, which then stays this writer's alone: emptied
        // keeping its capacity, it serves the next run without allocating.
        defer { run.removeAll(keepingCapacity: true) }
        try file.write(run, at: runStart)
    }
}
