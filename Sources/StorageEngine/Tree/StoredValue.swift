/// A value found in a leaf, held by the leaf's bytes alone: what a lookup hands out for a value
/// too long to copy (see `PageCache.locate(_:from:copyingInto:noting:)`), or found in a node read from
/// disk.
package struct StoredValue {
    /// The leaf's value bytes.
    let bytes: [UInt8]
    /// Where the value is in `bytes`; for a value stored in overflow pages, its reference.
    let range: Range<Int>
    let isOverflow: Bool

    /// Calls `body` with the value, reading its overflow page if it has one.
    @inline(__always)
    func withBytes<Result>(store: PageStore, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes { (buffer) in
            let stored = UnsafeRawBufferPointer(rebasing: buffer[range])
            return isOverflow ? try Self.withOverflowValue(stored, store: store, body) : try body(stored)
        }
    }

    /// Calls `body` with the value whose overflow reference is `reference`.
    static func withOverflowValue<Result>(
        _ reference: UnsafeRawBufferPointer, store: PageStore, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let descriptor = try OverflowDescriptor.decode(reference, origin: 0)
        let raw = try store.readPage(descriptor.page, expecting: .overflow)
        guard raw.count == Int(descriptor.valueLength) else {
            throw StorageError.corrupted("overflow value has \(raw.count) bytes, its leaf expects \(descriptor.valueLength)", at: descriptor.page.offset)
        }
        return try raw.withUnsafeBytes { (buffer) in try body(buffer) }
    }
}

extension Leaf {
    /// The value stored under `key`, if this leaf has it.
    @inline(__always)
    func storedValue(for key: UInt64) -> StoredValue? {
        let (index, found) = search(key)
        guard found else { return nil }
        return StoredValue(bytes: bytes, range: valueRange(at: index), isOverflow: isOverflow(at: index))
    }

    /// Calls `body` with value `index`, reading its overflow page if it has one.
    @inline(__always)
    package func withValue<Result>(
        at index: Int, store: PageStore, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let range = valueRange(at: index)
        let overflow = isOverflow(at: index)
        return try bytes.withUnsafeBytes { (buffer) in
            let stored = UnsafeRawBufferPointer(rebasing: buffer[range])
            return overflow ? try StoredValue.withOverflowValue(stored, store: store, body) : try body(stored)
        }
    }
}

extension Branch {
    /// The stored child whose range holds `key`.
    @inline(__always)
    func storedChild(for key: UInt64) -> PageRef {
        guard case .stored(let ref) = children[childIndex(for: key)] else {
            stopProgram("a stored tree has only stored children")
        }
        return ref
    }
}
