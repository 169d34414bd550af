/// Turns a leaf into its stored page, compressing it unless the leaf has shown it does not
/// compress.
///
/// Rows of random text and numbers (names, scores, timestamps) barely compress: LZ4 saves less
/// than an eighth of such a leaf, so `PageCodec` stores it raw, and the compression was spent
/// for nothing. A one-object commit rewrites the table's rightmost leaf and often its index's,
/// and would pay that on every commit.
///
/// So a leaf whose page came out raw remembers the encoded size at which that happened
/// (`Leaf.incompressibleSize`, in memory only; the page cache keeps it with the leaf). Encoded
/// again at under 5/4 of that size, it is stored raw without trying. A leaf that keeps growing
/// is tried again at each quarter of growth, so rows that turn compressible are compressed
/// after all, and a leaf read back from disk (no hint) is tried as before. A wrong guess costs
/// space (what the rows added since the last try would have saved, until the next try), never
/// correctness: the reader goes by the page's flag.
///
/// A leaf rewritten commit after commit (the rightmost leaf of a table that one-object
/// commits append to, an index's leaf that their ids land in) is *hot*: each of those
/// commits would survey and pack its columns again, most of the commit's time, for a page
/// the next commit replaces. So a leaf encoded by one of the `hotVersions` commits before
/// this one is stored whole (`NodeCodec.encodeWhole`, layout 0) and raw: a copy of its bytes.
/// It is packed again the first time a commit rewrites it after a pause, and when it splits
/// or fills. A commit with many dirty leaves packs them all (`ParallelLeafEncoding`), so the
/// cost is space, bounded by the few leaves small commits kept rewriting when writing
/// stopped; the reader decodes every layout to the same leaf.
enum LeafCompression {
    /// How many versions after its last encoding a leaf rewritten counts as hot.
    static let hotVersions: UInt64 = 16

    /// Whether the commit of `version` rewrites `leaf` within `hotVersions` of the commit
    /// that last encoded it.
    static func isHot(_ leaf: Leaf, atVersion version: UInt64) -> Bool {
        leaf.encodedAtVersion != 0 && version > leaf.encodedAtVersion && version - leaf.encodedAtVersion <= hotVersions
    }

    /// The stored page of `leaf` written by the commit of `version`: whole and raw if the
    /// leaf is hot, else `page(for:)`'s. The leaf keeps its hints and the version.
    static func page(for leaf: inout Leaf, atVersion version: UInt64) -> [UInt8] {
        defer { leaf.encodedAtVersion = version }
        if isHot(leaf, atVersion: version) {
            return PageCodec.encode(kind: .leaf, raw: NodeCodec.encodeWhole(leaf), compress: false)
        }
        let (page, hint) = page(for: leaf)
        leaf.incompressibleSize = hint
        return page
    }

    /// How much a leaf must have grown past its last failed try before it is tried again.
    static func isWorthTrying(encodedSize: Int, incompressibleSize: UInt32) -> Bool {
        incompressibleSize == 0 || encodedSize >= Int(incompressibleSize) + Int(incompressibleSize) / 4
    }

    /// The stored page of `leaf` (its checksum left for `PageCodec.seal`), and the hint the leaf
    /// should carry from now on.
    static func page(for leaf: Leaf) -> (page: [UInt8], incompressibleSize: UInt32) {
        let raw = NodeCodec.encode(leaf)
        let tries = isWorthTrying(encodedSize: raw.count, incompressibleSize: leaf.incompressibleSize)
        let page = PageCodec.encode(kind: .leaf, raw: raw, compress: tries)
        if PageCodec.isCompressed(page) { return (page, 0) }
        // Not tried: keep the size of the last real try, so that growth is measured from it.
        return (page, tries ? UInt32(raw.count) : leaf.incompressibleSize)
    }
}
