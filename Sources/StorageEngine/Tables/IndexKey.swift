/// Maps indexed values to tree keys that sort as the values do.
///
/// An index is a tree from `IndexKey.of(value)` to a bucket of the rows holding values with that
/// key. Integers, dates, doubles and object keys map one to one (order preserved); strings, data
/// and UUIDs map by their first 8 bytes, so values sharing a prefix share a bucket, and the bucket
/// keeps the full values apart.
package enum IndexKey {
    package static func of(_ value: RowValue) -> UInt64 {
        switch value {
        case .null: return 0
        case .bool(let flag): return flag ? 2 : 1
        case .int(let number): return UInt64(bitPattern: number) ^ (1 << 63)
        case .timestamp(let seconds, _): return UInt64(bitPattern: seconds) ^ (1 << 63)
        // -0.0 == 0.0, so both must land in one bucket.
        case .float(let number): return orderable(number == 0 ? 0 : Double(number).bitPattern)
        case .double(let number): return orderable(number == 0 ? 0 : number.bitPattern)
        case .objectKey(let key): return key
        case .uuid(let bits): return UInt64(truncatingIfNeeded: bits >> 64)
        case .string(let text):
            return text.withUTF8InPlace { prefix(UnsafeRawBufferPointer($0)) }
        case .binary(let bytes): return bytes.withUnsafeBytes { prefix($0) }
        case .list: stopProgram("lists cannot be indexed")
        }
    }

    private static func orderable(_ bits: UInt64) -> UInt64 {
        bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    private static func prefix(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var key: UInt64 = 0
        for index in 0..<8 {
            key <<= 8
            if index < bytes.count { key |= UInt64(bytes[index]) }
        }
        return key
    }
}

extension Array {
    /// The first index whose element fails `belongsBefore` (binary search over a partitioned array).
    func partitionPoint(_ belongsBefore: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) >> 1
            if belongsBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
