/// Appends little-endian integers, LEB128 varints and raw bytes to a growing buffer.
package struct ByteWriter {
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
    package static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }
}
