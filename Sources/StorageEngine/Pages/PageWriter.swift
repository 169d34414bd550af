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

    package func write(_ stored: [UInt8], at offset: UInt64) throws {
        if !run.isEmpty && (offset != runStart + UInt64(run.count) || run.count >= PageWriter.maxRunBytes) {
            try flush()
        }
        if run.isEmpty { runStart = offset }
        run.append(contentsOf: stored)
    }

    /// Issues the pending run. Called before the commit's first sync.
    package func flush() throws {
        guard !run.isEmpty else { return }
        let bytes = run
        run.removeAll(keepingCapacity: true)
        try file.write(bytes, at: runStart)
    }
}
