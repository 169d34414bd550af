/// Where encoders write: a growing array (`ByteWriter`) or memory sized beforehand
/// (`UnsafeByteWriter`). Encoders written against it are specialised for each.
package protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func appendVarint(_ value: UInt64)
    mutating func appendUInt32(_ value: UInt32)
    mutating func appendUInt64(_ value: UInt64)
    mutating func append(_ buffer: UnsafeRawBufferPointer)
}

/// Appends little-endian integers, LEB128 varints and raw bytes to a growing buffer.
package struct ByteWriter: ByteSink {
    package var bytes: [UInt8]

    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    @inline(__always)
    package mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    package mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    // Byte by byte: `append(contentsOf:)` of a 4- or 8-byte buffer goes through the generic
    // sequence machinery, which costs several times these appends (a branch page of a few
    // hundred child references is re-encoded by every small commit).
    @inline(__always)
    package mutating func appendUInt32(_ value: UInt32) {
        var value = value
        for _ in 0..<4 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            value >>= 8
        }
    }

    @inline(__always)
    package mutating func appendUInt64(_ value: UInt64) {
        var value = value
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            value >>= 8
        }
    }

    package mutating func append<Bytes: Sequence>(contentsOf other: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    package mutating func append(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
    }

    /// The number of bytes `appendVarint(value)` writes.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }
}

/// Writes into memory sized beforehand: plain stores, with one bounds check per value. For
/// encoders that bound their length (a branch, a leaf): appending to an array checks its
/// uniqueness and capacity at every byte, which a branch's few hundred child references pay
/// at every commit.
package struct UnsafeByteWriter: ByteSink {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    package private(set) var count = 0

    package init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// An array of what `body` writes, given room for `maximum` bytes, which it must not pass;
    /// a varint needs ten bytes of room whatever its length. (The room is not zeroed first:
    /// only what `body` writes is kept.)
    package static func bytes(maximum: Int, prefix: Int = 0, _ body: (inout UnsafeByteWriter) throws -> Void) rethrows -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: prefix + maximum) { buffer, initialized in
            let all = UnsafeMutableRawBufferPointer(buffer)
            all.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: prefix)
            var writer = UnsafeByteWriter(UnsafeMutableRawBufferPointer(rebasing: all[prefix...]))
            try body(&writer)
            initialized = prefix + writer.count
        }
    }

    /// Replaces byte `offset` of what was written (a length set aside before what it counts).
    @inline(__always)
    package mutating func store(_ byte: UInt8, at offset: Int) {
        require(offset < count, "a patch past what was written")
        base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        require(count < capacity, "an unchecked write passed its room")
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    package mutating func appendVarint(_ value: UInt64) {
        require(count + 10 <= capacity, "an unchecked write passed its room (leave ten bytes' slack for a varint)")
        var value = value
        while value >= 0x80 {
            base.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: count, as: UInt8.self)
            count += 1
            value >>= 7
        }
        base.storeBytes(of: UInt8(value), toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    package mutating func appendUInt32(_ value: UInt32) {
        require(count + 4 <= capacity, "an unchecked write passed its room")
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: UInt32.self)
        count += 4
    }

    @inline(__always)
    package mutating func appendUInt64(_ value: UInt64) {
        require(count + 8 <= capacity, "an unchecked write passed its room")
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: UInt64.self)
        count += 8
    }

    @inline(__always)
    package mutating func append(_ buffer: UnsafeRawBufferPointer) {
        require(count + buffer.count <= capacity, "an unchecked write passed its room")
        if let source = buffer.baseAddress { (base + count).copyMemory(from: source, byteCount: buffer.count) }
        count += buffer.count
    }
}
