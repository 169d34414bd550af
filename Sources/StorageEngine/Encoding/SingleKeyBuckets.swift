/// Index buckets that each hold one value in one row, stored a column at a time: how a leaf
/// page keeps such buckets (leaf layout 2, see `Docs/Internals/FileFormat.md`).
///
/// A unique index's buckets, and most buckets of an index on values that rarely repeat, are
/// each `IndexBucket.encodeSingle`'s bytes: the value's length (varint), the value (a row of
/// one column, as `RowCodec` writes it), `2` (one key, inline), the row key (varint). Whole,
/// they took eight bytes an entry even compressed: the primary-key index of 100,000 objects
/// was 0.8 MB, a fifth of the file. By column, the values are a column of rows (`RowColumns`)
/// and the row keys packed numbers: ids that count up and the row keys beside them take no
/// bits at all. Buckets come back byte for byte; a leaf holding any other bucket keeps its
/// values whole (`NodeCodec`).
enum SingleKeyBuckets {
    /// Appends the buckets (each `ends[i]` where bucket `i` ends in `bytes`) by column to
    /// `writer` and returns true; returns false, writing nothing, unless every bucket is one
    /// value in one row, exactly as `IndexBucket.encodeSingle` writes it.
    static func encode(bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>, into writer: inout ByteWriter) -> Bool {
        var values = ByteWriter(capacity: bytes.count)
        var valueEnds: [UInt32] = []
        var keys: [Int64] = []
        valueEnds.reserveCapacity(ends.count)
        keys.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            guard let (value, key) = split(bytes, start..<Int(end)) else { return false }
            values.append(value)
            valueEnds.append(UInt32(values.count))
            keys.append(Int64(bitPattern: key))
            start = Int(end)
        }
        var columns = ByteWriter(capacity: values.count)
        let encoded = values.bytes.withUnsafeBytes { values in
            valueEnds.withUnsafeBufferPointer { ends in RowColumns.encode(bytes: values, ends: ends, into: &columns) }
        }
        guard encoded else { return false }
        columns.bytes.withUnsafeBytes { writer.append($0) }
        PackedNumbers.write(keys, to: &writer)
        return true
    }

    /// The value and the row key of the bucket at `range` of `bytes`, or nil unless it is one
    /// value in one row with every varint the shortest (so that writing it again gives the
    /// same bytes).
    private static func split(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> (value: UnsafeRawBufferPointer, key: UInt64)? {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[range]), origin: 0)
        guard let length = try? reader.readVarint(), length <= UInt64(reader.remaining),
              let value = try? reader.readBytes(Int(length)), (try? reader.readByte()) == 2,
              let key = try? reader.readVarint(),
              ByteWriter.varintSize(length) + Int(length) + 1 + ByteWriter.varintSize(key) == range.count else { return nil }
        return (value, key)
    }

    /// Reads `count` buckets stored by column, and returns them back to back with where each
    /// ends.
    static func decode(_ reader: inout ByteReader, count: Int) throws -> (ends: [UInt32], bytes: [UInt8]) {
        let (valueEnds, values) = try RowColumns.decode(&reader, count: count, endingThePage: false)
        let keys = try PackedNumbers.read(count, from: &reader)
        guard reader.isAtEnd else { throw reader.corrupted("has stray bytes after its row keys") }
        var ends: [UInt32] = []
        ends.reserveCapacity(count)
        // Each bucket: its value's length and its row key, varints given ten bytes of room
        // each (`UnsafeByteWriter.appendVarint`), the value, and the byte between.
        let bytes = values.withUnsafeBytes { values in
            UnsafeByteWriter.bytes(maximum: values.count + count * 21 + 16) { writer in
                var start = 0
                for (end, key) in zip(valueEnds, keys) {
                    writer.appendVarint(UInt64(Int(end) - start))
                    writer.append(UnsafeRawBufferPointer(rebasing: values[start..<Int(end)]))
                    writer.append(2)
                    writer.appendVarint(UInt64(bitPattern: key))
                    ends.append(UInt32(writer.count))
                    start = Int(end)
                }
            }
        }
        return (ends, RowColumns.fitted(bytes))
    }
}
