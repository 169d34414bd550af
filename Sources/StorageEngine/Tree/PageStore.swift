/// Reads pages of one file through its cache; the read side of every snapshot.
package final class PageStore: Sendable {
    package let file: any FileIO
    package let cache: PageCache
    /// What encrypts the file's pages; nil for a plain file.
    package let cipher: FileCipher?

    /// The next synthetic reference's number (see `holdInMemory`).
    private let nextSynthetic = Locked<UInt64>(1)

    package init(file: any FileIO, cache: PageCache, cipher: FileCipher? = nil) {
        self.file = file
        self.cache = cache
        self.cipher = cipher
    }

    /// What a stored page adds to its encoded body (see `PageCodec.overhead(cipher:)`).
    package var pageOverhead: Int { PageCodec.overhead(cipher: cipher) }

    /// Encrypts (in an encrypted file) and checksums a page about to be stored at `offset`.
    func seal(_ stored: inout [UInt8], at offset: UInt64) -> PageRef {
        PageCodec.seal(&stored, at: offset, cipher: cipher)
    }

    /// Where synthetic references start (see `PageRef.syntheticBase`).
    static let syntheticBase = PageRef.syntheticBase

    /// Reserves `count` synthetic references for nodes `holdInMemory` will keep: a commit
    /// names all its nodes first (a branch holds its children's references), then hands them
    /// over at once.
    func reserveSyntheticRefs(_ count: Int) -> SyntheticRefs {
        let first = nextSynthetic.withLock { next in
            defer { next += UInt64(count) }
            return next
        }
        return SyntheticRefs(next: first, end: first + UInt64(count))
    }

    /// Keeps each node in memory under its synthetic reference (from `reserveSyntheticRefs`),
    /// until `releaseFromMemory`: how a commit made durable by the redo log "writes" its nodes
    /// (see `Docs/Internals/RedoLog.md`). Every reader path reaches them through the cache as it would
    /// stored ones.
    func holdInMemory(_ nodes: consuming [(ref: PageRef, node: Node)]) {
        cache.hold(nodes, cost: PageStore.heldCost(of:))
    }

    /// What a held node counts against the cache: about its encoded size (a branch's keys
    /// are counted at a typical width rather than encoded one by one).
    private static func heldCost(of node: Node) -> Int {
        switch node {
        case .leaf(let leaf): leaf.encodedSize + 64
        case .branch(let branch): branch.children.count * (PageRef.encodedSize + 3) + 64
        }
    }

    /// Drops a node `holdInMemory` kept.
    func releaseFromMemory(_ ref: PageRef) {
        cache.release(ref)
    }

    /// The decoded tree node at `ref`, from the cache or from disk; a node read from disk is
    /// kept by the cache if `caching`.
    package func node(_ ref: PageRef, caching: Bool = true) throws -> Node {
        if let node = cache.node(for: ref) { return node }
        if ref.isSynthetic {
            throw StorageError.corrupted("a node held in memory (\(ref)) was released while a version still used it", at: ref.offset)
        }
        let (kind, raw) = try readRaw(ref)
        let node = try NodeCodec.decode(kind: kind, raw: raw, origin: ref.offset)
        if caching { cache.insert(node, for: ref, cost: raw.count + 64) }
        return node
    }

    /// The tree node at `ref` read from disk, its checksum (and MAC) checked, whether or not the
    /// cache holds it; not cached. What a verification of the file reads.
    func nodeFromDisk(_ ref: PageRef) throws -> Node {
        let (kind, raw) = try readRaw(ref)
        return try NodeCodec.decode(kind: kind, raw: raw, origin: ref.offset)
    }

    /// Calls `body` with the value stored under `key` in the tree rooted at `root`, or returns
    /// nil if there is none: through the cache while the path is cached, reading each node that
    /// is not and going on from it. A value up to 256 bytes (rows and index buckets usually are) is
    /// copied to the stack under the cache's lock (see `PageCache.locate(_:from:copyingInto:noting:)`);
    /// a longer one is read in place, holding the leaf's bytes.
    @inline(__always)
    package func withValue<Result>(
        forKey key: UInt64, from root: PageRef, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        // A local array, not `withUnsafeTemporaryAllocation`, which in a caller generic over
        // `Result` looked up the metadata of a `Swift.Result` type on every call. The lookup
        // copies into it in one closure and `body` reads it in another: a closure returning
        // `Result?` had the runtime instantiate `Optional<Result>`'s metadata on every call.
        var scratch = InlineArray<256, UInt8>(repeating: 0)
        var ref = root
        while true {
            var bytes = scratch.mutableSpan
            let location = bytes.withUnsafeMutableBytes { cache.locate(key, from: ref, copyingInto: $0) }
            switch location {
            case .copied(let count):
                return try scratch.span.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            case .found(let value): return try value.withBytes(store: self, body)
            case .absent: return nil
            case .uncached(let missing):
                // Read and cached now; descending from the copy, not the cache, which another
                // thread may already have evicted it from.
                switch try node(missing) {
                case .branch(let branch): ref = branch.storedChild(for: key)
                case .leaf(let leaf):
                    guard let value = leaf.storedValue(for: key) else { return nil }
                    return try value.withBytes(store: self, body)
                }
            }
        }
    }

    /// Copies the value stored under `key` in the tree rooted at `root` into `buffer` when it
    /// fits: `withValue(forKey:from:_:)` for a caller that keeps the bytes, copied once, from
    /// the cached leaf to where they stay, instead of to the stack and from there. A
    /// `directory` given learns the leaf found, and is told the tree, so that its hints
    /// recorded under `root` can answer without a descent (see `LeafDirectory`).
    package func copyValue(
        forKey key: UInt64, from root: PageRef, into buffer: UnsafeMutableRawBufferPointer, noting directory: LeafDirectory? = nil
    ) throws -> ValueCopy {
        directory?.enter(tree: root)
        var ref = root
        while true {
            switch cache.locate(key, from: ref, copyingInto: buffer, noting: directory) {
            case .copied(let count): return .copied(count)
            case .found(let value): return try value.withBytes(store: self) { ValueCopy.copy($0, into: buffer) }
            case .absent: return .absent
            case .uncached(let missing):
                switch try node(missing) {
                case .branch(let branch): ref = branch.storedChild(for: key)
                case .leaf(let leaf):
                    guard let value = leaf.storedValue(for: key) else { return .absent }
                    return try value.withBytes(store: self) { ValueCopy.copy($0, into: buffer) }
                }
            }
        }
    }

    /// The verified, decompressed body of the page at `ref`, which must be of kind `expected`.
    func readPage(_ ref: PageRef, expecting expected: PageKind) throws -> [UInt8] {
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
            try PageCodec.decode(buffer, ref: ref, cipher: cipher)
        }
    }
}

/// Synthetic references reserved by `PageStore.reserveSyntheticRefs`, handed out in order.
package struct SyntheticRefs {
    fileprivate(set) var next: UInt64
    let end: UInt64

    /// The next reserved reference. Offsets a cache-line apart, each a distinct key of the
    /// cache's offset table.
    package mutating func take() -> PageRef {
        require(next < end, "more nodes held than references reserved for them")
        defer { next += 1 }
        return PageRef(offset: PageStore.syntheticBase + next * 64, length: 0, checksum: next)
    }
}
