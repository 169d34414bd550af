/// The list of pages one commit wrote, so that the commit can be checked for completeness.
///
/// A commit writes its pages, its commit record and its header, then syncs once. Without a
/// sync between pages and header the disk may keep the header and lose a page, so the header
/// points to this record, and opening the file reads every page the record lists and checks
/// its checksum before trusting the header; an incomplete commit is skipped for the version
/// before it, whose pages the commit never overwrote. Commits larger than
/// `WriteTransaction.syncedPagesThreshold` sync their pages before writing the header instead
/// and store no record, so opening never reads more than that threshold.
///
/// Body layout (stored uncompressed): page count (u32), then one PageRef per page.
package enum CommitRecord {
    static func encodedSize(pageCount: Int) -> Int { 4 + pageCount * PageRef.encodedSize }

    package static func encode(_ pages: [PageRef], into writer: inout ByteWriter) {
        writer.appendUInt32(UInt32(pages.count))
        for page in pages { page.write(to: &writer) }
    }

    /// Whether every page of `header`'s commit is on disk with the bytes it was written with.
    static func isComplete(_ header: FileHeader, store: PageStore) -> Bool {
        missingPart(of: header, store: store) == nil
    }

    /// What of `header`'s commit is not on disk as it was written (its record, or the first of
    /// its pages that is not), nil when all of it is.
    static func missingPart(of header: FileHeader, store: PageStore) -> String? {
        guard !header.commitRecord.isNull else { return nil }
        do {
            let raw = try store.readPage(header.commitRecord, expecting: .commitRecord)
            let pages = try raw.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer, origin: header.commitRecord.offset)
                let count = Int(try reader.readUInt32())
                guard count <= reader.remaining / PageRef.encodedSize else { throw reader.corrupted("commit record overruns its page") }
                return try (0..<count).map { _ in try PageRef.read(from: &reader) }
            }
            for page in pages {
                guard page.offset >= FileHeader.dataStart, page.length >= UInt32(PageCodec.headerSize),
                      page.offset + UInt64(page.length) <= header.end else { return "its record lists an impossible page \(page)" }
                let stored = try store.file.read(count: Int(page.length), at: page.offset)
                let checksum = stored.withUnsafeBytes { PageCodec.checksumOf($0, at: page.offset) }
                guard checksum == page.checksum else { return "its page at offset \(page.offset) fails its checksum" }
            }
            return nil
        } catch {
            return "its record at offset \(header.commitRecord.offset) cannot be read (\(error))"
        }
    }
}
