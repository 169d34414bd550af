/// Leaf body: entry count (varint); the keys (`KeyForm`: a run, or the first key then deltas,
/// varints); a layout byte; then the values. Layout 1: the values are rows, stored a column at
/// a time (`RowColumns`), which every leaf of a table's rows is. Layout 2: index buckets of one
/// value in one row each, stored a column at a time (`SingleKeyBuckets`), which every leaf of a
/// unique index is. Layout 0, for any other values (other buckets, a row too long for the
/// page): per entry `length << 1 | overflow` (varint), then the values back to back. Keys,
/// lengths and values sit in separate runs because each run is regular on its own, which is
/// what LZ4 rewards.
///
/// Branch body: child count (varint); separator keys (first absolute, then deltas, varints);
/// then one `PageRef` (offset u64, length u32, checksum u64) per child.
package enum NodeCodec {
    package static func encode(_ leaf: Leaf) -> [UInt8] {
        if let columns = encodeByColumns(leaf, as: .rowsByColumn) ?? encodeByColumns(leaf, as: .singleKeyBuckets) { return columns }
        return encodeWhole(leaf)
    }

    /// `leaf` with its values whole (layout 0), whatever they are: a copy of its bytes, with
    /// nothing surveyed or packed.
    package static func encodeWhole(_ leaf: Leaf) -> [UInt8] {
        // At most ten bytes for the count, each key's delta and each value's length.
        UnsafeByteWriter.bytes(maximum: 11 + leaf.count * 20 + leaf.bytes.count) { writer in
            writer.appendVarint(UInt64(leaf.count))
            appendLeafKeys(leaf.keys, to: &writer)
            writer.append(Layout.values.rawValue)
            leaf.ends.withUnsafeBufferPointer { ends in
                var start: UInt32 = 0
                for field in ends {
                    let end = field & ~Leaf.overflowBit
                    writer.appendVarint(UInt64(end - start) << 1 | (field & Leaf.overflowBit != 0 ? 1 : 0))
                    start = end
                }
            }
            leaf.bytes.withUnsafeBytes { writer.append($0) }
        }
    }

    /// The layouts of a leaf's values.
    enum Layout: UInt8 {
        /// Any values, whole (`encode`).
        case values = 0
        /// Rows, a column at a time (`RowColumns`).
        case rowsByColumn = 1
        /// Index buckets of one value in one row each, a column at a time (`SingleKeyBuckets`).
        case singleKeyBuckets = 2
    }

    /// `leaf` with its values stored by column in `layout`, or nil unless every value is
    /// what the layout stores (a row as `RowCodec` writes it, or a bucket as
    /// `IndexBucket.encodeSingle` writes it) and none is in an overflow page.
    private static func encodeByColumns(_ leaf: Leaf, as layout: Layout) -> [UInt8]? {
        guard leaf.count > 0, !leaf.ends.contains(where: { $0 & Leaf.overflowBit != 0 }) else { return nil }
        var writer = ByteWriter(capacity: 16 + leaf.count * 4 + leaf.bytes.count)
        writer.appendVarint(UInt64(leaf.count))
        appendLeafKeys(leaf.keys, to: &writer)
        writer.append(layout.rawValue)
        let encoded = leaf.bytes.withUnsafeBytes { bytes in
            leaf.ends.withUnsafeBufferPointer { ends in
                layout == .rowsByColumn
                    ? RowColumns.encode(bytes: bytes, ends: ends, into: &writer)
                    : SingleKeyBuckets.encode(bytes: bytes, ends: ends, into: &writer)
            }
        }
        return encoded ? writer.bytes : nil
    }

    /// Writes `branch`; `writer` needs room for `encodedSize(of: branch)` bytes, and ten more
    /// (see `UnsafeByteWriter.appendVarint`).
    package static func encode(_ branch: Branch, into writer: inout UnsafeByteWriter) {
        writer.appendVarint(UInt64(branch.children.count))
        appendDeltas(of: branch.keys, to: &writer)
        branch.children.withUnsafeBufferPointer { children in
            for child in children {
                guard case .stored(let ref) = child else {
                    stopProgram("NodeCodec.encode(_:into:) needs every child written first")
                }
                ref.write(to: &writer)
            }
        }
    }

    /// The most entries a leaf page may declare. A leaf is split at `TreeLayout.maxLeafBytes`
    /// and every entry takes at least two bytes of that (its key and its length), so a
    /// written leaf holds far fewer; the bound keeps a damaged count from making the reader
    /// allocate without limit now that keys and packed columns can take no bytes at all.
    static let maximumLeafEntries = 1 << 16

    /// How a leaf's keys are stored: one byte before them.
    enum KeyForm: UInt8 {
        /// The first key, then each key's distance from the one before, as varints.
        case deltas = 0
        /// The first key and the step between keys (varints): keys that count up evenly, as
        /// the row keys of objects added in order do, in two or three bytes for the page.
        case run = 1
    }

    /// A leaf's keys: a run if they step evenly, their deltas otherwise.
    private static func appendLeafKeys(_ keys: [UInt64], to writer: inout some ByteSink) {
        if keys.count > 2 {
            let step = keys[1] &- keys[0]
            if keys.indices.dropFirst(2).allSatisfy({ keys[$0] &- keys[$0 - 1] == step }) {
                writer.append(KeyForm.run.rawValue)
                writer.appendVarint(keys[0])
                writer.appendVarint(step)
                return
            }
        }
        writer.append(KeyForm.deltas.rawValue)
        appendDeltas(of: keys, to: &writer)
    }

    /// The first key, then each key's distance from the one before, as varints.
    @inline(__always)
    private static func appendDeltas(of keys: [UInt64], to writer: inout some ByteSink) {
        keys.withUnsafeBufferPointer { keys in
            var previous: UInt64 = 0
            for key in keys {
                writer.appendVarint(key &- previous)
                previous = key
            }
        }
    }

    /// The exact length of `encode(branch, into:)`.
    static func encodedSize(of branch: Branch) -> Int {
        var size = ByteWriter.varintSize(UInt64(branch.children.count)) + branch.children.count * PageRef.encodedSize
        var previous: UInt64 = 0
        for key in branch.keys {
            size += ByteWriter.varintSize(key &- previous)
            previous = key
        }
        return size
    }

    package static func decode(kind: PageKind, raw: [UInt8], origin: UInt64) throws -> Node {
        try raw.withUnsafeBytes { (buffer) -> Node in
            var reader = ByteReader(buffer, origin: origin)
            switch kind {
            case .leaf: return .leaf(try decodeLeaf(&reader, raw: raw))
            case .branch: return .branch(try decodeBranch(&reader))
            default: throw StorageError.corrupted("expected a tree page, found a \(kind) page", at: origin)
            }
        }
    }

    /// The layout of the values of the leaf whose page body is `raw`.
    static func layout(ofLeaf raw: [UInt8]) throws -> Layout {
        try raw.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, origin: 0)
            return try readLeafHead(&reader).layout
        }
    }

    /// A leaf's keys and the layout of its values, leaving `reader` at the values.
    private static func readLeafHead(_ reader: inout ByteReader) throws -> (keys: [UInt64], layout: Layout) {
        let keys = try readLeafKeys(&reader, count: try reader.readLength(limit: maximumLeafEntries))
        guard let layout = Layout(rawValue: try reader.readByte()) else { throw reader.corrupted("has values in an unknown layout") }
        return (keys, layout)
    }

    private static func decodeLeaf(_ reader: inout ByteReader, raw: [UInt8]) throws -> Leaf {
        let (keys, layout) = try readLeafHead(&reader)
        let count = keys.count
        switch layout {
        case .values: break
        case .rowsByColumn:
            let (ends, bytes) = try RowColumns.decode(&reader, count: count)
            // Fitted: a cached leaf is counted by its bytes, not by the room they were written in.
            return Leaf(keys: keys, ends: ends, bytes: RowColumns.fitted(bytes))
        case .singleKeyBuckets:
            let (ends, bytes) = try SingleKeyBuckets.decode(&reader, count: count)
            return Leaf(keys: keys, ends: ends, bytes: bytes)
        }
        var ends = [UInt32]()
        ends.reserveCapacity(count)
        var end: UInt64 = 0
        for _ in 0..<count {
            let field = try reader.readVarint()
            end += field >> 1
            guard end <= UInt64(reader.remaining) else { throw reader.corrupted("has a value that runs past its end") }
            ends.append(UInt32(end) | (field & 1 == 1 ? Leaf.overflowBit : 0))
        }
        guard end == UInt64(reader.remaining) else { throw reader.corrupted("has \(reader.remaining - Int(end)) stray bytes") }
        let bytes = Array(raw[reader.position...])
        return Leaf(keys: keys, ends: ends, bytes: bytes)
    }

    private static func readLeafKeys(_ reader: inout ByteReader, count: Int) throws -> [UInt64] {
        var keys = [UInt64]()
        keys.reserveCapacity(count)
        switch KeyForm(rawValue: try reader.readByte()) {
        case .deltas?:
            var key: UInt64 = 0
            for index in 0..<count {
                let delta = try reader.readVarint()
                if index > 0 && delta == 0 { throw reader.corrupted("has keys out of order") }
                key &+= delta
                keys.append(key)
            }
        case .run?:
            let first = try reader.readVarint()
            let step = try reader.readVarint()
            guard step > 0, count < 2 || (UInt64.max - first) / step >= UInt64(count - 1) else {
                throw reader.corrupted("has keys out of order")
            }
            for index in 0..<count { keys.append(first + UInt64(index) * step) }
        case nil:
            throw reader.corrupted("has keys stored in an unknown way")
        }
        return keys
    }

    private static func decodeBranch(_ reader: inout ByteReader) throws -> Branch {
        let count = try reader.readLength(limit: reader.remaining / PageRef.encodedSize)
        guard count >= 1 else { throw reader.corrupted("is a branch without children") }
        var keys = [UInt64]()
        keys.reserveCapacity(count - 1)
        var key: UInt64 = 0
        for index in 0..<(count - 1) {
            let delta = try reader.readVarint()
            if index > 0 && delta == 0 { throw reader.corrupted("has separators out of order") }
            key &+= delta
            keys.append(key)
        }
        var children = [Child]()
        children.reserveCapacity(count)
        for _ in 0..<count {
            let ref = try PageRef.read(from: &reader)
            if ref.isNull { throw reader.corrupted("has a null child") }
            children.append(.stored(ref))
        }
        guard reader.isAtEnd else { throw reader.corrupted("has stray bytes after its children") }
        return Branch(keys: keys, children: children)
    }
}
