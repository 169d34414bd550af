/// Reads pages of one file through its cache; the read side of every snapshot.
package final class PageStore: Sendable {
    package let file: any FileIO
    package let cache: PageCache

    package init(file: any FileIO, cache: PageCache) {
        self.file = file
        self.cache = cache
    }

    /// The decoded tree node at `ref`, from the cache or from disk.
    package func node(_ ref: PageRef) throws -> Node {
        if let node = cache.node(for: ref) { return node }
        let (kind, raw) = try readRaw(ref)
        let node = try NodeCodec.decode(kind: kind, raw: raw, origin: ref.offset)
        cache.insert(node, for: ref, cost: raw.count + 64)
        return node
    }

    /// The value stored under `key` in the tree rooted at `root`: through the cache while the
    /// path is cached, reading each node that is not and going on from it.
    package func locate(_ key: UInt64, from root: PageRef) throws -> StoredValue? {
        var ref = root
        while true {
            switch cache.locate(key, from: ref) {
            case .found(let value): return value
            case .absent: return nil
            case .uncached(let missing):
                // Read and cached now; descending from the copy, not the cache, which another
                // thread may already have evicted it from.
                switch try node(missing) {
                case .branch(let branch): ref = branch.storedChild(for: key).ref
                case .leaf(let leaf): return leaf.storedValue(for: key)
                }
            }
        }
    }

    /// The verified, decompressed body of the page at `ref`, which must be of kind `expected`.
    package func readPage(_ ref: PageRef, expecting expected: PageKind) throws -> [UInt8] {
        let (kind, raw) = try readRaw(ref)
        guard kind == expected else {
            throw StorageError.corrupted("expected a \(expected) page, found a \(kind) page", at: ref.offset)
        }
        return raw
    }

    private func readRaw(_ ref: PageRef) throws -> (PageKind, [UInt8]) {
        guard ref.length >= UInt32(PageCodec.headerSize), ref.offset >= FileHeader.dataStart else {
            throw StorageError.corrupted("a parent points to an impossible page \(ref)", at: ref.offset)
        }
        let stored = try file.read(count: Int(ref.length), at: ref.offset)
        return try stored.withUnsafeBytes { (buffer) in
            try PageCodec.decode(buffer, ref: ref)
        }
    }
}
