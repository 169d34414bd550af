/// What `TreeReading.copyValue(forKey:into:)` did with the value stored under a key.
package enum ValueCopy: Equatable {
    /// The value is the first this many bytes of the buffer.
    case copied(Int)
    /// The value is longer than the buffer; nothing was copied.
    case tooLong
    /// Nothing is stored under the key.
    case absent

    /// Copies `value` to the start of `buffer` if it fits.
    @inline(__always)
    static func copy(_ value: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> ValueCopy {
        guard value.count <= buffer.count else { return .tooLong }
        if let source = value.baseAddress, let target = buffer.baseAddress {
            target.copyMemory(from: source, byteCount: value.count)
        }
        return .copied(value.count)
    }
}
