import CPrefetch

/// One column of a leaf's rows, decoded into a packed array: what a filter, a count or an
/// aggregate over many rows reads instead of each row's bytes.
///
/// Built the first time a scan asks for that column of that leaf, and kept in the page cache
/// under the leaf's reference (`PageCache.attach(_:to:tag:cost:)`), apart from the leaf: a
/// page never changes, so the column stays right for as long as it is kept, and the next scan
/// reads the packed array alone, without the leaf (`LeafRows`). A leaf a write transaction
/// changed and has not stored yet gets a column built for the one scan. The packed arrays are what the loops in `ColumnFilter` and `TableReading+Columns`
/// run over, a word of 64 rows at a time, in code the compiler vectorizes.
package final class LeafColumn: Sendable {
    /// The type of value a column is read as; a row holding anything else (null, a column
    /// added after it was written) is not present.
    package enum Kind: Int, Sendable {
        case integer = 0, double = 1, string = 2
    }

    /// The number of rows.
    let count: Int
    /// Bit `i % 64` of word `i / 64` is set when row `i` holds a value of the kind.
    let present: [UInt64]
    /// For an integer column, each row's value (0 where not present).
    let integers: [Int64]
    /// For a double column, each row's value (0 where not present).
    let doubles: [Double]
    /// For a string column, where each row's UTF-8 bytes end in `stringBytes`.
    let stringEnds: [UInt32]
    let stringBytes: [UInt8]

    private init(count: Int, present: [UInt64], integers: [Int64] = [], doubles: [Double] = [], stringEnds: [UInt32] = [], stringBytes: [UInt8] = []) {
        self.count = count
        self.present = present
        self.integers = integers
        self.doubles = doubles
        self.stringEnds = stringEnds
        self.stringBytes = stringBytes
    }

    /// The bytes the column keeps, as the page cache counts them.
    var cost: Int {
        64 + present.count * 8 + integers.count * 8 + doubles.count * 8 + stringEnds.count * 4 + stringBytes.count
    }

    /// What the page cache keeps column `column` read as `kind` under, with the leaf's
    /// reference.
    static func tag(column: Int, kind: Kind) -> Int { column << 2 | kind.rawValue }

    /// The columns `wanted`, each once, in the order first wanted, and their tags.
    static func distinct(_ wanted: [(column: Int, kind: Kind)]) -> (columns: [(column: Int, kind: Kind)], tags: [Int]) {
        var (columns, tags): ([(column: Int, kind: Kind)], [Int]) = ([], [])
        for column in wanted where !tags.contains(tag(column: column.column, kind: column.kind)) {
            columns.append(column)
            tags.append(tag(column: column.column, kind: column.kind))
        }
        return (columns, tags)
    }

    static func build(_ column: Int, kind: Kind, of leaf: Leaf, store: PageStore) throws -> LeafColumn {
        let count = leaf.count
        var present = [UInt64](repeating: 0, count: Bitmap.words(for: count))
        @inline(__always) func mark(_ row: Int) { present[row >> 6] |= 1 &<< UInt64(row & 63) }
        /// Each row's value as `read` finds it (zero where it finds none), marked present.
        func values<Value: Numeric>(_ read: (UnsafeRawBufferPointer, inout ColumnCursor) -> Value?) throws -> [Value] {
            var values = [Value](repeating: 0, count: count)
            for row in 0..<count {
                var cursor = ColumnCursor()
                if let value = try leaf.withValue(at: row, store: store, { read($0, &cursor) }) {
                    values[row] = value
                    mark(row)
                }
            }
            return values
        }
        switch kind {
        case .integer:
            let integers = try values { RowCodec.integer(column, of: $0, cursor: &$1) }
            return LeafColumn(count: count, present: present, integers: integers)
        case .double:
            let doubles = try values { RowCodec.double(column, of: $0, cursor: &$1) }
            return LeafColumn(count: count, present: present, doubles: doubles)
        case .string:
            var ends = [UInt32]()
            ends.reserveCapacity(count)
            var bytes = [UInt8]()
            for row in 0..<count {
                var cursor = ColumnCursor()
                try leaf.withValue(at: row, store: store) { stored in
                    guard let string = RowCodec.string(column, of: stored, cursor: &cursor) else { return }
                    bytes.append(contentsOf: string)
                    mark(row)
                }
                ends.append(UInt32(bytes.count))
            }
            return LeafColumn(count: count, present: present, stringEnds: ends, stringBytes: bytes)
        }
    }

    /// The columns `parts`, each of the kind given, one after the other: the column of every
    /// row of a table, from its leaves' (see `WholeTableColumns`). Nil for string columns
    /// whose bytes together are more than a `UInt32` end can say.
    static func joined(_ parts: [LeafColumn], kind: Kind) -> LeafColumn? {
        let count = parts.reduce(0) { $0 + $1.count }
        var present = [UInt64](repeating: 0, count: Bitmap.words(for: count))
        var row = 0
        for part in parts {
            Bitmap.copy(part.present, count: part.count, into: &present, at: row)
            row += part.count
        }
        func all<Value>(_ values: (LeafColumn) -> [Value]) -> [Value] {
            var all = [Value]()
            all.reserveCapacity(count)
            for part in parts { all.append(contentsOf: values(part)) }
            return all
        }
        switch kind {
        case .integer:
            return LeafColumn(count: count, present: present, integers: all(\.integers))
        case .double:
            return LeafColumn(count: count, present: present, doubles: all(\.doubles))
        case .string:
            guard parts.reduce(0, { $0 + $1.stringBytes.count }) <= Int(UInt32.max) else { return nil }
            var ends = [UInt32]()
            ends.reserveCapacity(count)
            var bytes = [UInt8]()
            for part in parts {
                let start = UInt32(bytes.count)
                ends.append(contentsOf: part.stringEnds.lazy.map { $0 + start })
                bytes.append(contentsOf: part.stringBytes)
            }
            return LeafColumn(count: count, present: present, stringEnds: ends, stringBytes: bytes)
        }
    }

    /// Starts loading the column's arrays, every line of them, without waiting (see
    /// `LeafReadAhead`).
    func prefetch() {
        present.withUnsafeBytes(Self.prefetch)
        if !integers.isEmpty { integers.withUnsafeBytes(Self.prefetch) }
        if !doubles.isEmpty { doubles.withUnsafeBytes(Self.prefetch) }
        if !stringEnds.isEmpty { stringEnds.withUnsafeBytes(Self.prefetch) }
        if !stringBytes.isEmpty { stringBytes.withUnsafeBytes(Self.prefetch) }
    }

    @inline(__always)
    private static func prefetch(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        for offset in stride(from: 0, to: bytes.count, by: 64) { asyncrealm_prefetch(base + offset) }
    }

    /// Calls `body` with each row's string bytes, nil where the row holds no string.
    @inline(__always)
    func forEachString(_ body: (Int, UnsafeRawBufferPointer?) throws -> Void) rethrows {
        try stringBytes.withUnsafeBytes { bytes in
            var start = 0
            for row in 0..<count {
                let end = Int(stringEnds[row])
                try body(row, Bitmap.contains(present, row) ? UnsafeRawBufferPointer(rebasing: bytes[start..<end]) : nil)
                start = end
            }
        }
    }
}

/// Rows as bits: bit `i % 64` of word `i / 64` for row `i`.
enum Bitmap {
    static func words(for count: Int) -> Int { (count + 63) >> 6 }

    @inline(__always)
    static func contains(_ words: [UInt64], _ row: Int) -> Bool { words[row &>> 6] &>> UInt64(row & 63) & 1 != 0 }

    /// The bits of word `word` that stand for one of `count` rows.
    @inline(__always)
    static func mask(word: Int, count: Int) -> UInt64 {
        let rows = count - word << 6
        return rows >= 64 ? ~0 : (1 &<< UInt64(rows)) &- 1
    }

    /// Sets the bits of `whole` from row `start` on to the first `count` bits of `part`, in
    /// `whole`'s zero bits.
    static func copy(_ part: [UInt64], count: Int, into whole: inout [UInt64], at start: Int) {
        let shift = UInt64(start & 63)
        for word in 0..<words(for: count) {
            let bits = part[word] & mask(word: word, count: count)
            let target = start >> 6 + word
            whole[target] |= bits &<< shift
            if shift != 0, bits &>> (64 - shift) != 0 { whole[target + 1] |= bits &>> (64 - shift) }
        }
    }

    /// How many rows the set bits of `words` stand for.
    static func population(_ words: [UInt64]) -> Int {
        words.reduce(0) { $0 + $1.nonzeroBitCount }
    }
}
