/// Reads what `ByteWriter` wrote, checking every bound.
///
/// Every structure the engine reads from disk passes through here, so a length or count that
/// points outside the buffer throws `fileCorrupted` naming the page's offset instead of crashing.
package struct ByteReader {
    package let buffer: UnsafeRawBufferPointer
    package var position: Int
    /// The file offset of the page being read, for error messages.
    package let origin: UInt64

    package init(_ buffer: UnsafeRawBufferPointer, position: Int = 0, origin: UInt64) {
        self.buffer = buffer
        self.position = position
        self.origin = origin
    }

    var isAtEnd: Bool { position >= buffer.count }
    var remaining: Int { buffer.count - position }

    package func corrupted(_ what: String) -> StorageError {
        StorageError.corrupted("page \(what) at byte \(position)", at: origin)
    }

    @inline(__always)
    mutating func readByte() throws -> UInt8 {
        guard position < buffer.count else { throw corrupted("ends early") }
        let byte = buffer[position]
        position += 1
        return byte
    }

    @inline(__always)
    mutating func readVarint() throws -> UInt64 {
        if position < buffer.count, buffer[position] < 0x80 {
            position += 1
            return UInt64(buffer[position - 1])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < buffer.count else { throw corrupted("ends inside a varint") }
            let byte = buffer[position]
            position += 1
            if shift == 63 && byte > 1 { throw corrupted("has an oversized varint") }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a varint that counts or measures something inside this buffer, bounded by `limit`.
    @inline(__always)
    mutating func readLength(limit: Int) throws -> Int {
        let value = try readVarint()
        guard value <= UInt64(limit) else { throw corrupted("declares a length of \(value), more than the \(limit) possible") }
        return Int(value)
    }

    mutating func readUInt32() throws -> UInt32 {
        guard remaining >= 4 else { throw corrupted("ends inside a 32-bit field") }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        position += 4
        return UInt32(littleEndian: value)
    }

    mutating func readUInt64() throws -> UInt64 {
        guard remaining >= 8 else { throw corrupted("ends inside a 64-bit field") }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    mutating func readBytes(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw corrupted("ends inside a \(count)-byte field") }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[position..<(position + count)])
        position += count
        return slice
    }

    package mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw corrupted("ends inside a \(count)-byte field") }
        position += count
    }

    /// Skips one varint without assembling its value.
    @inline(__always)
    mutating func skipVarint() throws {
        while true {
            guard position < buffer.count else { throw corrupted("ends inside a varint") }
            let byte = buffer[position]
            position += 1
            if byte < 0x80 { return }
        }
    }
}
