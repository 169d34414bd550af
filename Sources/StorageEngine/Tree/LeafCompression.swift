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
enum LeafCompression {
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
