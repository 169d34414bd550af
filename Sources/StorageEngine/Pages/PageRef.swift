/// Where a stored page lives and what it must hash to.
///
/// A parent records its child's checksum as well as its place, as ZFS does: a page that was lost,
/// misdirected or left stale by a crashed writer is caught even when its own bytes are
/// self-consistent, and the pair (offset, checksum) identifies the page's contents so the page cache
/// never confuses a reused extent with the page that lived there before.
package struct PageRef: Hashable, Sendable, CustomStringConvertible {
    /// Byte offset of the page's header in the file. Zero means "no page" (the header lives there).
    package var offset: UInt64
    /// Stored length in bytes, header included.
    package var length: UInt32
    /// XXH3-64 of the stored bytes after the checksum field, seeded with `offset`.
    package var checksum: UInt64

    package init(offset: UInt64, length: UInt32, checksum: UInt64) {
        self.offset = offset
        self.length = length
        self.checksum = checksum
    }

    package static let null = PageRef(offset: 0, length: 0, checksum: 0)
    package var isNull: Bool { offset == 0 }
    /// Where synthetic references, to nodes held in memory (`PageStore.holdInMemory`), start:
    /// past the end of any file, so that no page of the file is ever confused with one.
    static let syntheticBase: UInt64 = 1 << 62

    /// Whether this names a node held in memory rather than a page of the file.
    var isSynthetic: Bool { offset >= Self.syntheticBase }

    /// Size of a reference as `write(to:)` stores it.
    static let encodedSize = 20

    package func write(to writer: inout ByteWriter) {
        writer.appendUInt64(offset)
        writer.appendUInt32(length)
        writer.appendUInt64(checksum)
    }

    @inline(__always)
    package func write(to writer: inout UnsafeByteWriter) {
        writer.appendUInt64(offset)
        writer.appendUInt32(length)
        writer.appendUInt64(checksum)
    }

    package static func read(from reader: inout ByteReader) throws -> PageRef {
        let offset = try reader.readUInt64()
        let length = try reader.readUInt32()
        let checksum = try reader.readUInt64()
        return PageRef(offset: offset, length: length, checksum: checksum)
    }

    package var description: String { isNull ? "PageRef(null)" : "PageRef(\(offset)+\(length))" }
}
