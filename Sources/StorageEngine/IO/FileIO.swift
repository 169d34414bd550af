/// The seam through which every byte of a database file is read and written (invariant 7).
///
/// Tests substitute implementations that tear, drop or fail writes, the way SQLite tests through its
/// VFS. Implementations must be safe to call from several threads at once: readers on many threads
/// share one file while one writer appends pages.
package protocol FileIO: AnyObject, Sendable {
    /// Fills `buffer` with the bytes at `offset`. Reading past the end of the file throws
    /// `fileCorrupted`, because the engine only reads what a committed version references.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws
    /// Writes `bytes` at `offset`, growing the file as needed. Not durable until `sync()` returns.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Writes `parts`, one after the other, from `offset`: a run of adjacent pages. A
    /// requirement, not only an extension method, so that a call through `any FileIO` reaches
    /// `PosixFile`'s `pwritev` instead of the default, which joins the parts into one buffer.
    func write(gathering parts: [UnsafeRawBufferPointer], at offset: UInt64) throws
    /// Makes every write issued before this call durable.
    func sync() throws
    /// Writes `bytes` at `offset` and returns once they are durable, as `write` then `sync`
    /// would, except that other writes not synced yet may not be: for a file whose every write
    /// that matters is made durable as it is written (the redo log).
    func writeDurably(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Asks for the bytes written in `range` to start on their way to the disk, without waiting:
    /// a hint that lets a later `sync` find them written already. A file may ignore it.
    func startWriteback(_ range: Range<UInt64>)
    /// The file's current length in bytes.
    func size() throws -> UInt64
    /// Sets the file's length, dropping or zero-filling the tail.
    func truncate(to length: UInt64) throws
    /// Readies `range`, which no committed version uses, for the writes of later commits:
    /// an optimisation a file may ignore (see `PosixFile`). The range's contents may change.
    func prepareForWriting(_ range: Range<UInt64>) throws
    /// The granularity of this file's reads and writes: 1, or for a file written past the page
    /// cache, the block size their offsets, lengths and memory must be multiples of.
    var alignment: Int { get }
}

extension FileIO {
    package func prepareForWriting(_ range: Range<UInt64>) throws {}

    package func writeDurably(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try write(bytes, at: offset)
        try sync()
    }

    package func startWriteback(_ range: Range<UInt64>) {}

    package var alignment: Int { 1 }

    /// Writes `parts`, one after the other, from `offset`: what `PageWriter` issues for a run of
    /// adjacent pages. This form joins them and makes one `write`; `PosixFile` hands the parts
    /// to the kernel as they are (`pwritev`).
    package func write(gathering parts: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        var joined: [UInt8] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { joined.append(contentsOf: part) }
        try joined.withUnsafeBytes { try write($0, at: offset) }
    }

    package func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        // Not zeroed first: the read fills every byte or throws. A damaged reference may ask
        // for gigabytes past the end of a small file, which zeroing would spend seconds on
        // before the read found the end.
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            initialized = count
        }
    }

    package func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { (buffer) in
            try write(buffer, at: offset)
        }
    }
}
