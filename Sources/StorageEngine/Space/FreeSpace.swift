/// A run of bytes in the file.
package struct Extent: Sendable, Equatable, Hashable {
    package var offset: UInt64
    package var length: UInt64

    package init(offset: UInt64, length: UInt64) {
        self.offset = offset
        self.length = length
    }

    package init(_ ref: PageRef) {
        self.init(offset: ref.offset, length: FreeSpace.rounded(UInt64(ref.length)))
    }

    package var end: UInt64 { offset + length }
}

/// Space freed by one commit, not reusable until no snapshot older than that commit is pinned.
package struct PendingRelease: Sendable, Equatable {
    /// The version whose commit stopped referencing these extents.
    package var version: UInt64
    var extents: [Extent]
}

/// The allocator's state as of one committed version (invariant 2).
///
/// `free` holds extents no version can see; `pending` holds extents that version `v` stopped
/// using but that a snapshot older than `v` may still read. `reclaim(oldestPinned:)` moves
/// pending groups into `free` once every reader has moved past them. Allocation is first-fit in
/// address order, falling back to the end of the file.
package struct FreeSpace: Sendable, Equatable {
    /// Every page occupies a multiple of this many bytes.
    static let granularity: UInt64 = 64

    package private(set) var free: [Extent] = []
    package private(set) var pending: [PendingRelease] = []

    /// The bytes of `free` and `pending` together: the file's data that no page of the
    /// newest version uses.
    package var unusedBytes: UInt64 {
        free.reduce(0) { $0 + $1.length } + pending.reduce(0) { $0 + $1.extents.reduce(0) { $0 + $1.length } }
    }
    /// Where the file's used space ends; allocation past every free extent starts here.
    package private(set) var end: UInt64

    package init(end: UInt64) {
        self.end = end
    }

    @inline(__always)
    package static func rounded(_ length: UInt64) -> UInt64 {
        (length + granularity - 1) / granularity * granularity
    }

    /// Returns the offset of `length` bytes no version can see.
    package mutating func allocate(_ length: Int) -> UInt64 {
        let size = FreeSpace.rounded(UInt64(length))
        for index in free.indices where free[index].length >= size {
            let offset = free[index].offset
            if free[index].length == size {
                free.remove(at: index)
            } else {
                free[index].offset += size
                free[index].length -= size
            }
            return offset
        }
        let offset = end
        end += size
        return offset
    }

    /// Returns the offset, a multiple of `alignment` (a power of two), of `length` bytes no
    /// version can see: first fit among the free extents, else the end of the file (moved up to
    /// the alignment). The space skipped before the aligned start stays free.
    package mutating func allocate(_ length: Int, alignment: UInt64) -> UInt64 {
        let size = FreeSpace.rounded(UInt64(length))
        for index in free.indices {
            let extent = free[index]
            let start = (extent.offset + alignment - 1) & ~(alignment - 1)
            guard start + size <= extent.end else { continue }
            let head = Extent(offset: extent.offset, length: start - extent.offset)
            let tail = Extent(offset: start + size, length: extent.end - (start + size))
            free.replaceSubrange(index...index, with: [head, tail].filter { $0.length > 0 })
            return start
        }
        let start = (end + alignment - 1) & ~(alignment - 1)
        if start > end { free.append(Extent(offset: end, length: start - end)) }
        end = start + size
        return start
    }

    /// Makes `extent` reusable at once. Only for space no version can see.
    package mutating func release(_ extent: Extent) {
        var low = 0
        var high = free.count
        while low < high {
            let middle = (low + high) >> 1
            if free[middle].offset < extent.offset { low = middle + 1 } else { high = middle }
        }
        var merged = extent
        var start = low
        var stop = low
        if low > 0 && free[low - 1].end == merged.offset {
            start = low - 1
            merged = Extent(offset: free[low - 1].offset, length: free[low - 1].length + merged.length)
        }
        if stop < free.count && merged.end == free[stop].offset {
            merged.length += free[stop].length
            stop += 1
        }
        if merged.end == end {
            // Space at the tail goes back to the file's end rather than the free list, so a
            // file whose tail was rewritten does not keep growing.
            free.removeSubrange(start..<stop)
            end = merged.offset
        } else {
            free.replaceSubrange(start..<stop, with: [merged])
        }
    }

    /// How many pending extents are kept apart before they are merged (see `retire`).
    static let pendingExtentLimit = 1024

    /// Records extents that the commit producing `version` stopped referencing.
    ///
    /// While a reader keeps an old version pinned, nothing is reclaimed and every commit adds
    /// its extents; kept apart, they would make the free list (written by every commit) grow
    /// without bound. Past `pendingExtentLimit` they are merged into one group released at
    /// `version`, adjacent extents joined: commits writing at the file's tail free runs that
    /// join into a few. Merging only delays reuse, which a pinned reader delays anyway.
    mutating func retire(_ extents: [Extent], atVersion version: UInt64) {
        guard !extents.isEmpty else { return }
        if let last = pending.last, last.version == version {
            pending[pending.count - 1].extents.append(contentsOf: extents)
        } else {
            require(pending.last.map { $0.version < version } ?? true, "retire(_:atVersion:) needs increasing versions")
            pending.append(PendingRelease(version: version, extents: extents))
        }
        pendingExtentCount += extents.count
        if pendingExtentCount > FreeSpace.pendingExtentLimit { mergePending(atVersion: version) }
    }

    private var pendingExtentCount = 0

    private mutating func mergePending(atVersion version: UInt64) {
        var merged: [Extent] = []
        for extent in pending.flatMap(\.extents).sorted(by: { $0.offset < $1.offset }) {
            if let last = merged.last, last.end == extent.offset {
                merged[merged.count - 1].length += extent.length
            } else {
                merged.append(extent)
            }
        }
        pending = [PendingRelease(version: version, extents: merged)]
        pendingExtentCount = merged.count
    }

    /// Frees every pending group whose version is at most `oldestPinned`: no live snapshot predates it.
    mutating func reclaim(oldestPinned: UInt64) {
        var count = 0
        while count < pending.count && pending[count].version <= oldestPinned { count += 1 }
        guard count > 0 else { return }
        var extents: [Extent] = []
        for group in pending[..<count] { extents.append(contentsOf: group.extents) }
        pending.removeFirst(count)
        pendingExtentCount = pending.reduce(0) { $0 + $1.extents.count }
        // Release from the highest offset down so tail space shrinks the file's end in one pass.
        for extent in extents.sorted(by: { $0.offset > $1.offset }) { release(extent) }
    }

    // MARK: Encoding

    /// The stored size of `encode(paddedTo:into:)` unpadded: fixed-width fields, so allocating the page that holds the
    /// list (which can only shrink or remove one extent) never makes the encoding longer.
    var encodedSize: Int {
        24 + free.count * 16 + pending.reduce(0) { $0 + 12 + $1.extents.count * 16 }
    }

    /// Layout: end u64, free count u32, pending count u32, reserved u64; the free extents
    /// (offset u64, length u64); then per pending group version u64, count u32, its extents.
    /// Trailing zero bytes are padding.
    /// Appends the encoding, padded with zeros to `size` bytes.
    package func encode(paddedTo size: Int, into writer: inout ByteWriter) {
        let start = writer.count
        writer.appendUInt64(end)
        writer.appendUInt32(UInt32(free.count))
        writer.appendUInt32(UInt32(pending.count))
        writer.appendUInt64(0)
        for extent in free {
            writer.appendUInt64(extent.offset)
            writer.appendUInt64(extent.length)
        }
        for group in pending {
            writer.appendUInt64(group.version)
            writer.appendUInt32(UInt32(group.extents.count))
            for extent in group.extents {
                writer.appendUInt64(extent.offset)
                writer.appendUInt64(extent.length)
            }
        }
        let written = writer.count - start
        if written < size { writer.append(contentsOf: repeatElement(0, count: size - written)) }
    }

    package static func decode(_ raw: [UInt8], origin: UInt64) throws -> FreeSpace {
        try raw.withUnsafeBytes { (buffer) -> FreeSpace in
            var reader = ByteReader(buffer, origin: origin)
            var space = FreeSpace(end: try reader.readUInt64())
            let freeCount = Int(try reader.readUInt32())
            let pendingCount = Int(try reader.readUInt32())
            _ = try reader.readUInt64()
            guard freeCount <= reader.remaining / 16, pendingCount <= reader.remaining / 12 else {
                throw reader.corrupted("free list declares more extents than it holds")
            }
            var previousEnd = FileHeader.dataStart
            for _ in 0..<freeCount {
                let extent = Extent(offset: try reader.readUInt64(), length: try reader.readUInt64())
                guard extent.offset >= previousEnd, extent.length > 0, extent.end <= space.end else {
                    throw reader.corrupted("free list has an extent out of order or past the end")
                }
                previousEnd = extent.end
                space.free.append(extent)
            }
            for _ in 0..<pendingCount {
                let version = try reader.readUInt64()
                let count = Int(try reader.readUInt32())
                guard count <= reader.remaining / 16 else { throw reader.corrupted("free list group declares more extents than it holds") }
                var extents: [Extent] = []
                for _ in 0..<count {
                    let extent = Extent(offset: try reader.readUInt64(), length: try reader.readUInt64())
                    guard extent.offset >= FileHeader.dataStart, extent.end <= space.end else {
                        throw reader.corrupted("free list has a pending extent outside the file")
                    }
                    extents.append(extent)
                }
                space.pending.append(PendingRelease(version: version, extents: extents))
                space.pendingExtentCount += extents.count
            }
            return space
        }
    }
}
