/// What a leaf stores in place of a value that lives in an overflow page.
package struct OverflowDescriptor {
    package var page: PageRef
    var valueLength: UInt32

    static let encodedSize = PageRef.encodedSize + 4

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.encodedSize)
        page.write(to: &writer)
        writer.appendUInt32(valueLength)
        return writer.bytes
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, origin: UInt64) throws -> OverflowDescriptor {
        var reader = ByteReader(bytes, origin: origin)
        let page = try PageRef.read(from: &reader)
        let length = try reader.readUInt32()
        return OverflowDescriptor(page: page, valueLength: length)
    }
}
