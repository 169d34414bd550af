/// The allocator of one write transaction: where its new pages go and which old ones it frees.
///
/// New pages only ever land in space `FreeSpace` calls free, which no committed version can see,
/// so writing them can never damage the version a crash falls back to (invariant 1). Pages this
/// transaction stops using are collected in `freed` and retired at the new version on commit.
package final class TransactionSpace {
    package let store: PageStore
    package var freeSpace: FreeSpace
    package private(set) var freed: [Extent] = []
    private let writer: PageWriter

    package init(store: PageStore, freeSpace: FreeSpace) {
        self.store = store
        self.freeSpace = freeSpace
        self.writer = PageWriter(file: store.file)
    }

    /// Marks a page the transaction no longer references.
    package func free(_ ref: PageRef) {
        guard !ref.isNull else { return }
        freed.append(Extent(ref))
    }

    /// Encodes, places and writes (buffered until `flush()`) a page.
    package func writePage(kind: PageKind, raw: [UInt8]) throws -> PageRef {
        var stored = PageCodec.encode(kind: kind, raw: raw)
        let offset = freeSpace.allocate(stored.count)
        let ref = PageCodec.seal(&stored, at: offset)
        try writer.write(stored, at: offset)
        return ref
    }

    /// Writes a tree node and puts its decoded form in the cache, so the first read after the
    /// commit does not decode what the writer already had in memory.
    package func writeNode(_ node: Node) throws -> PageRef {
        let raw: [UInt8]
        let kind: PageKind
        switch node {
        case .leaf(let leaf): raw = NodeCodec.encode(leaf); kind = .leaf
        case .branch(let branch): raw = NodeCodec.encode(branch); kind = .branch
        }
        let ref = try writePage(kind: kind, raw: raw)
        store.cache.insert(node, for: ref, cost: raw.count + 64)
        return ref
    }

    /// Writes an overflow page at once (it may be read back before the commit).
    package func writeOverflow(_ value: UnsafeRawBufferPointer) throws -> PageRef {
        try writer.flush()
        var stored = PageCodec.encode(kind: .overflow, raw: value)
        let offset = freeSpace.allocate(stored.count)
        let ref = PageCodec.seal(&stored, at: offset)
        try store.file.write(stored, at: offset)
        return ref
    }

    /// Issues every buffered write.
    package func flush() throws {
        try writer.flush()
    }
}
