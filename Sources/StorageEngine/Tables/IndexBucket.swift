import Glibc

/// The row keys holding one indexed value: inline while few, a tree of their own once many.
///
/// Inline lists keep lookups of selective values to one page read; a separate tree keeps
/// inserting into a value held by a million rows (an indexed `Bool`) at O(log n) instead of
/// rewriting a million-key list on every insert.
package enum PostingList: Equatable {
    case inline([UInt64])
    /// A tree whose keys are the row keys (values empty), and how many keys it holds.
    case tree(root: PageRef, count: UInt64)

    /// Inline lists longer than this move to a tree; trees that shrink to half of it move back.
    static let inlineLimit = 256

    package var count: Int {
        switch self {
        case .inline(let keys): return keys.count
        case .tree(_, let count): return Int(count)
        }
    }
}

/// The entries of one index bucket: each distinct value whose index key is the bucket's, with
/// its posting list.
///
/// Stored as, per value: encoded value length (varint); the value (`RowCodec` of one column);
/// `count << 1 | isTree` (varint); then either the row keys ascending (first absolute, then
/// deltas) or the posting tree's root (PageRef).
package struct IndexBucket {
    package var entries: [(value: RowValue, keys: PostingList)] = []

    package init() {}

    package var isEmpty: Bool { entries.isEmpty }

    func postingList(for value: RowValue) -> PostingList? {
        entries.first { $0.value.isIdentical(to: value) }?.keys
    }

    /// Sets (or with nil removes) the posting list of `value`.
    mutating func setPostingList(_ list: PostingList?, for value: RowValue) {
        let index = entries.firstIndex { $0.value.isIdentical(to: value) }
        switch (index, list) {
        case (let index?, let list?): entries[index].keys = list
        case (let index?, nil): entries.remove(at: index)
        case (nil, let list?): entries.append((value, list))
        case (nil, nil): break
        }
    }

    /// The posting list of `value` in the encoded bucket `bytes`, decoding no other entry's keys.
    static func postingList(for value: RowValue, in bytes: UnsafeRawBufferPointer) throws -> PostingList? {
        try posting(for: value, in: bytes, inline: { count, reader in .inline(try readInlineKeys(count, from: &reader)) }, tree: { $0 })
    }

    /// The first row key holding `value` in the encoded bucket `bytes` if its keys are inline
    /// (nil for none), without collecting the others into an array: what a primary-key lookup
    /// needs, on every lookup. A posting tree is returned as it is.
    static func firstInlineKey(for value: RowValue, in bytes: UnsafeRawBufferPointer) throws -> (first: UInt64?, tree: PostingList?)? {
        try posting(for: value, in: bytes, inline: { count, reader in (count == 0 ? nil : try reader.readVarint(), nil) }, tree: { (nil, $0) })
    }

    /// Finds `value`'s entry in the encoded bucket `bytes` and gives its inline keys' count and
    /// a reader at the first (to `inline`), or its posting tree (to `tree`).
    @inline(__always)
    private static func posting<Found>(
        for value: RowValue, in bytes: UnsafeRawBufferPointer,
        inline: (_ count: Int, _ reader: inout ByteReader) throws -> Found, tree: (PostingList) -> Found
    ) throws -> Found? {
        var reader = ByteReader(bytes, origin: 0)
        while !reader.isAtEnd {
            let encoded = try reader.readBytes(try reader.readLength(limit: reader.remaining))
            let matches = try Self.encodedValue(encoded, equals: value)
            let field = try reader.readVarint()
            if field & 1 == 1 {
                let root = try PageRef.read(from: &reader)
                if matches { return tree(.tree(root: root, count: field >> 1)) }
                continue
            }
            let count = Int(field >> 1)
            guard count <= reader.remaining else { throw reader.corrupted("index bucket declares \(count) keys") }
            guard matches else {
                for _ in 0..<count { _ = try reader.readVarint() }
                continue
            }
            return try inline(count, &reader)
        }
        return nil
    }

    /// Whether the value encoded in `encoded` is `value` (`RowValue.isIdentical`). A string is
    /// compared by its bytes where they lie, without making a `String`.
    static func encodedValue(_ encoded: UnsafeRawBufferPointer, equals value: RowValue) throws -> Bool {
        if case .string(let text) = value, let stored = try RowCodec.stringBytes(0, of: encoded) {
            return text.withUTF8InPlace { probe in
                probe.count == stored.count && (probe.isEmpty || memcmp(probe.baseAddress!, stored.baseAddress!, probe.count) == 0)
            }
        }
        return try RowCodec.decodeColumn(0, of: encoded).isIdentical(to: value)
    }

    /// Calls `body` with each posting tree of the encoded bucket `bytes` and its value's
    /// encoding, without decoding any value or inline key: what freeing an index needs. A
    /// unique index has none, and clearing one visits every bucket, so nothing is collected.
    static func forEachPostingTree(
        in bytes: UnsafeRawBufferPointer, _ body: (_ encodedValue: UnsafeRawBufferPointer, _ root: PageRef) throws -> Void
    ) throws {
        var reader = ByteReader(bytes, origin: 0)
        while !reader.isAtEnd {
            let encoded = try reader.readBytes(try reader.readLength(limit: reader.remaining))
            let field = try reader.readVarint()
            if field & 1 == 1 {
                try body(encoded, try PageRef.read(from: &reader))
                continue
            }
            let count = Int(field >> 1)
            guard count <= reader.remaining else { throw reader.corrupted("index bucket declares \(count) keys") }
            for _ in 0..<count { _ = try reader.readVarint() }
        }
    }

    /// `count` row keys stored ascending, the first absolute and then deltas.
    private static func readInlineKeys(_ count: Int, from reader: inout ByteReader) throws -> [UInt64] {
        var keys: [UInt64] = []
        keys.reserveCapacity(count)
        var key: UInt64 = 0
        for _ in 0..<count {
            key &+= try reader.readVarint()
            keys.append(key)
        }
        return keys
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer) throws -> IndexBucket {
        var bucket = IndexBucket()
        var reader = ByteReader(bytes, origin: 0)
        while !reader.isAtEnd {
            let encoded = try reader.readBytes(try reader.readLength(limit: reader.remaining))
            guard let value = try RowCodec.decode(encoded).first else { throw reader.corrupted("index bucket has an empty value") }
            let field = try reader.readVarint()
            if field & 1 == 1 {
                bucket.entries.append((value, .tree(root: try PageRef.read(from: &reader), count: field >> 1)))
                continue
            }
            let count = Int(field >> 1)
            guard count <= reader.remaining else { throw reader.corrupted("index bucket declares \(count) keys") }
            bucket.entries.append((value, .inline(try readInlineKeys(count, from: &reader))))
        }
        return bucket
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        for (value, list) in entries {
            Self.appendValue(value, to: &writer)
            switch list {
            case .inline(let keys):
                writer.appendVarint(UInt64(keys.count) << 1)
                var previous: UInt64 = 0
                for key in keys {
                    writer.appendVarint(key &- previous)
                    previous = key
                }
            case .tree(let root, let count):
                writer.appendVarint(count << 1 | 1)
                root.write(to: &writer)
            }
        }
        return writer.bytes
    }

    /// Appends the encoding of a bucket holding `value` in row `key` alone: what
    /// `IndexBucket(value → .inline([key])).encoded()` gives, without building the bucket.
    static func encodeSingle(_ value: RowValue, key: UInt64, into writer: inout ByteWriter) {
        appendValue(value, to: &writer)
        writer.appendVarint(1 << 1)
        writer.appendVarint(key)
    }

    /// As `encodeSingle(_:key:into:)`, into memory with room for
    /// `RowCodec.maximumEncodedSize(single:)` bytes and 21 more. Returns false, having written
    /// an unfinished entry, for a value whose encoding takes 128 bytes or more (its length would
    /// not fit the byte set aside for it): encode such a value into a `ByteWriter` instead.
    static func encodeSingle(_ value: RowValue, key: UInt64, into writer: inout UnsafeByteWriter) -> Bool {
        let lengthAt = writer.count
        writer.append(0)
        RowCodec.encode(single: value, into: &writer)
        let length = writer.count - lengthAt - 1
        guard length < 0x80 else { return false }
        writer.store(UInt8(length), at: lengthAt)
        writer.appendVarint(1 << 1)
        writer.appendVarint(key)
        return true
    }

    /// An entry's value: its encoded length, then the encoding.
    private static func appendValue(_ value: RowValue, to writer: inout ByteWriter) {
        // Most values take under 128 bytes, so one byte is set aside for the length and the
        // value encoded in place, moved only when it is longer.
        let lengthAt = writer.count
        writer.append(0)
        RowCodec.encode(single: value, into: &writer)
        let length = writer.count - lengthAt - 1
        if length < 0x80 {
            writer.bytes[lengthAt] = UInt8(length)
        } else {
            let encoded = Array(writer.bytes[(lengthAt + 1)...])
            writer.bytes.removeSubrange(lengthAt...)
            writer.appendVarint(UInt64(length))
            writer.append(contentsOf: encoded)
        }
    }
}

extension PostingList {
    /// The row keys, ascending, reading a stored posting tree through `store`.
    package func keys(store: PageStore) throws -> [UInt64] {
        switch self {
        case .inline(let keys):
            return keys
        case .tree(let root, let count):
            return try TreeReader(store: store, root: root).allKeys(reserving: Int(count))
        }
    }
}

extension TreeReading {
    /// Every key of the tree, in order.
    func allKeys(reserving capacity: Int = 0) throws -> [UInt64] {
        var keys: [UInt64] = []
        keys.reserveCapacity(capacity)
        try scan { key, _ in
            keys.append(key)
            return true
        }
        return keys
    }
}
