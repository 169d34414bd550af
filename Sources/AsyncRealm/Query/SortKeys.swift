import Foundation

/// The values a `SORT` orders by, one column per sort key, in the form that compares fastest.
///
/// In a column of integers, or of ASCII strings (nil allowed in both), each value gets a 64-bit
/// *prefix* that orders like the value: an integer's bits with the sign flipped, the first
/// eight bytes of a string (big-endian, so that comparing the numbers compares the bytes).
/// Most comparisons are decided by the prefixes alone; when two prefixes are equal and either
/// does not stand for its whole value (a longer string, nil), the values themselves are
/// compared. Other columns (doubles, dates, strings beyond ASCII) give every value the prefix
/// zero, so that the values always decide; strings of any kind order by their UTF-8 bytes
/// (`QueryScalar.compareBytes`).
struct SortKeys {
    /// One sort key's values, as `QueryPlanner` reads them.
    enum Values {
        case scalars([QueryScalar])
        /// A string column whose values are all ASCII or nil, read as bytes: no `String` is
        /// made for values that are only compared.
        case asciiStrings(ASCIIStrings)
    }

    private let prefixes: [[UInt64]]
    /// Whether each value's prefix stands for the whole value: two equal complete prefixes
    /// are equal values.
    private let complete: [[Bool]]
    private let columns: [SortColumn]
    private let ascending: [Bool]

    init(columns values: [[QueryScalar]], ascending: [Bool]) {
        self.init(values.map(Values.scalars), ascending: ascending)
    }

    init(_ values: [Values], ascending: [Bool]) {
        var prefixes: [[UInt64]] = []
        var complete: [[Bool]] = []
        var columns: [SortColumn] = []
        for column in values {
            switch column {
            case .scalars(let scalars):
                var columnPrefixes = [UInt64](repeating: 0, count: scalars.count)
                var columnComplete = [Bool](repeating: false, count: scalars.count)
                if Self.hasPrefixes(scalars) {
                    for (position, value) in scalars.enumerated() {
                        (columnPrefixes[position], columnComplete[position]) = Self.prefix(of: value)
                    }
                }
                prefixes.append(columnPrefixes)
                complete.append(columnComplete)
                columns.append(SortColumn(scalars))
            case .asciiStrings(let strings):
                let (columnPrefixes, columnComplete) = strings.prefixes()
                prefixes.append(columnPrefixes)
                complete.append(columnComplete)
                columns.append(.ascii(strings))
            }
        }
        self.prefixes = prefixes
        self.complete = complete
        self.columns = columns
        self.ascending = ascending
    }

    /// Whether the column is all integers or all ASCII strings, nil aside.
    static func hasPrefixes(_ column: [QueryScalar]) -> Bool {
        var integers = false, strings = false
        for value in column {
            switch value {
            case .null: continue
            case .int: integers = true
            case .string(let text) where Self.isASCII(text): strings = true
            default: return false
            }
            if integers && strings { return false }
        }
        return true
    }

    /// Whether `text` is all ASCII, read through its contiguous UTF-8 (iterating `utf8` goes
    /// through the generic collection witnesses here, several times slower).
    private static func isASCII(_ text: String) -> Bool {
        text.withUTF8InPlace { bytes in
            for byte in bytes where byte >= 0x80 { return false }
            return true
        }
    }

    /// The prefix of `value` (an integer, an ASCII string or nil), and whether it stands for
    /// the whole value. Any two values whose prefixes differ are ordered as their prefixes are
    /// (nil's prefix is zero, and is never complete: only the values decide between nil and
    /// the smallest integer or the empty string).
    static func prefix(of value: QueryScalar) -> (UInt64, Bool) {
        switch value {
        case .int(let number):
            let prefix = UInt64(bitPattern: number) ^ (1 << 63)
            return (prefix, prefix != 0)
        case .string(let text):
            return text.withUTF8InPlace { prefix(ofString: UnsafeRawBufferPointer($0)) }
        default:
            return (0, false)
        }
    }

    /// The prefix of the string of UTF-8 `bytes`, and whether it stands for the whole string.
    @inline(__always)
    static func prefix(ofString bytes: UnsafeRawBufferPointer) -> (UInt64, Bool) {
        var prefix: UInt64 = 0
        var hasNul = false
        for index in 0..<min(bytes.count, 8) {
            prefix |= UInt64(bytes[index]) << (56 - 8 * index)
            hasNul = hasNul || bytes[index] == 0
        }
        // A NUL byte pads like the end of the string: only strings of eight bytes or fewer
        // without one are whole in their prefix.
        return (prefix, bytes.count <= 8 && !hasNul)
    }

    /// The positions of the values in sorted order; ties keep their order.
    func sortedPositions() -> [Int] {
        let count = columns.first?.count ?? 0
        if columns.count <= 2 { return sortedByEntries(count: count) }
        var positions = Array(0..<count)
        positions.sort { a, b in
            for index in columns.indices {
                let order = Self.order(a, b, prefixes[index], complete[index], columns[index])
                if order != 0 { return ascending[index] ? order < 0 : order > 0 }
            }
            return a < b
        }
        return positions
    }

    /// One or two sort keys: the prefixes are copied next to their position, inverted for a
    /// descending key, so that most comparisons read one small struct instead of following
    /// positions into separate arrays.
    private struct Entry {
        var first: UInt64
        var second: UInt64
        var position: Int
    }

    private func sortedByEntries(count: Int) -> [Int] {
        let two = columns.count == 2
        var entries = (0..<count).map { position in
            Entry(first: ascending[0] ? prefixes[0][position] : ~prefixes[0][position],
                  second: two ? (ascending[1] ? prefixes[1][position] : ~prefixes[1][position]) : 0,
                  position: position)
        }
        let complete0 = complete[0], column0 = columns[0], ascending0 = ascending[0]
        let complete1 = two ? complete[1] : [], column1 = columns[two ? 1 : 0], ascending1 = two && ascending[1]
        let inOrder = { (a: Entry, b: Entry) -> Bool in
            if a.first != b.first { return a.first < b.first }
            if !(complete0[a.position] && complete0[b.position]) {
                let order = column0.order(a.position, b.position)
                if order != 0 { return ascending0 ? order < 0 : order > 0 }
            }
            if two {
                if a.second != b.second { return a.second < b.second }
                if !(complete1[a.position] && complete1[b.position]) {
                    let order = column1.order(a.position, b.position)
                    if order != 0 { return ascending1 ? order < 0 : order > 0 }
                }
            }
            return a.position < b.position
        }
        guard count >= Self.radixSortThreshold, Self.radixSortByPrefixes(&entries) else {
            entries.sort(by: inOrder)
            return entries.map(\.position)
        }
        // The prefixes are in order and ties in position order; where prefixes are equal and one
        // of them does not stand for its whole value, the values decide: those runs are sorted
        // again with the full comparison (runs of one first prefix, or of one first and second).
        var start = 0
        while start < count {
            var end = start + 1
            var whole = complete0[entries[start].position]
            while end < count && entries[end].first == entries[start].first {
                whole = whole && complete0[entries[end].position]
                end += 1
            }
            if !whole {
                entries[start..<end].sort(by: inOrder)
            } else if two {
                var inner = start
                while inner < end {
                    var innerEnd = inner + 1
                    var innerWhole = complete1[entries[inner].position]
                    while innerEnd < end && entries[innerEnd].second == entries[inner].second {
                        innerWhole = innerWhole && complete1[entries[innerEnd].position]
                        innerEnd += 1
                    }
                    if !innerWhole && innerEnd - inner > 1 { entries[inner..<innerEnd].sort(by: inOrder) }
                    inner = innerEnd
                }
            }
            start = end
        }
        return entries.map(\.position)
    }

    /// Below this many values a comparison sort is as fast as the radix passes.
    static var radixSortThreshold: Int { 512 }

    /// Sorts `entries` by first prefix, then second, ties in the order given (a least
    /// significant digit radix sort, one pass per byte that differs between entries); false,
    /// leaving them as they were, when so many bytes differ that a comparison sort is faster.
    /// A stable merge sort of 100,000 entries moves each one some seventeen times; sorting by
    /// age then name, nine bytes differ.
    private static func radixSortByPrefixes(_ entries: inout [Entry]) -> Bool {
        var firstOr: UInt64 = 0, firstAnd: UInt64 = ~0, secondOr: UInt64 = 0, secondAnd: UInt64 = ~0
        for entry in entries {
            firstOr |= entry.first; firstAnd &= entry.first
            secondOr |= entry.second; secondAnd &= entry.second
        }
        // The bytes to sort by, least significant first: the second prefix's, then the first's.
        var digits: [(first: Bool, shift: UInt64)] = []
        for (isFirst, varying) in [(false, secondOr ^ secondAnd), (true, firstOr ^ firstAnd)] {
            for byte in 0..<8 where (varying >> UInt64(8 * byte)) & 0xff != 0 {
                digits.append((isFirst, UInt64(8 * byte)))
            }
        }
        guard digits.count <= 12 else { return false }
        // Every digit's histogram in one read, then one scatter per digit between two buffers.
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 256 * digits.count)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 256 * digits.count)
        @inline(__always) func bucket(_ entry: Entry, _ digit: (first: Bool, shift: UInt64)) -> Int {
            Int(truncatingIfNeeded: ((digit.first ? entry.first : entry.second) >> digit.shift) & 0xff)
        }
        for entry in entries {
            for (index, digit) in digits.enumerated() { counts[256 * index + bucket(entry, digit)] += 1 }
        }
        var buffer = [Entry](repeating: Entry(first: 0, second: 0, position: 0), count: entries.count)
        for (index, digit) in digits.enumerated() {
            let slots = counts + 256 * index
            var offset = 0
            for value in 0..<256 { (slots[value], offset) = (offset, offset + slots[value]) }
            entries.withUnsafeBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { target in
                    for entry in source {
                        let slot = bucket(entry, digit)
                        target[slots[slot]] = entry
                        slots[slot] += 1
                    }
                }
            }
            swap(&entries, &buffer)
        }
        return true
    }

    @inline(__always)
    private static func order(_ a: Int, _ b: Int, _ prefix: [UInt64], _ complete: [Bool], _ column: SortColumn) -> Int {
        let left = prefix[a], right = prefix[b]
        if left != right { return left < right ? -1 : 1 }
        if complete[a] && complete[b] { return 0 }
        return column.order(a, b)
    }
}

/// The values of a string column that are all ASCII (or nil), kept as their bytes side by
/// side: ASCII strings order as their bytes do, so sorting them needs no `String`.
struct ASCIIStrings {
    private(set) var bytes: [UInt8] = []
    /// By position: where the value's bytes start, and how many there are (-1 for nil).
    private(set) var spans: [(start: Int, count: Int)]

    init(count: Int) {
        spans = Array(repeating: (0, -1), count: count)
    }

    /// Sets the value at `position` to the string of `utf8`; false if it is not all ASCII.
    mutating func set(_ utf8: UnsafeRawBufferPointer, at position: Int) -> Bool {
        for byte in utf8 where byte >= 0x80 { return false }
        spans[position] = (bytes.count, utf8.count)
        bytes.append(contentsOf: utf8)
        return true
    }

    var count: Int { spans.count }

    /// Each value's prefix and whether it is whole in it (see `SortKeys.prefix(of:)`).
    func prefixes() -> ([UInt64], [Bool]) {
        var prefixes = [UInt64](repeating: 0, count: spans.count)
        var complete = [Bool](repeating: false, count: spans.count)
        bytes.withUnsafeBytes { all in
            for (position, span) in spans.enumerated() where span.count >= 0 {
                (prefixes[position], complete[position]) = SortKeys.prefix(ofString: UnsafeRawBufferPointer(rebasing: all[span.start..<(span.start + span.count)]))
            }
        }
        return (prefixes, complete)
    }

    /// The order of the values at positions `a` and `b`, nil first, then by bytes.
    func order(_ a: Int, _ b: Int) -> Int {
        let left = spans[a], right = spans[b]
        if left.count < 0 || right.count < 0 { return left.count < 0 ? (right.count < 0 ? 0 : -1) : 1 }
        return bytes.withUnsafeBytes { all in
            let common = min(left.count, right.count)
            if common > 0 {
                let compared = memcmp(all.baseAddress! + left.start, all.baseAddress! + right.start, common)
                if compared != 0 { return compared < 0 ? -1 : 1 }
            }
            return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
        }
    }
}

/// One sort key's values, unboxed where they are all integers or all strings.
private enum SortColumn {
    case integers([Int64?])
    case strings([String?])
    case ascii(ASCIIStrings)
    case scalars([QueryScalar])

    init(_ values: [QueryScalar]) {
        if values.allSatisfy({ if case .int = $0 { true } else { $0 == .null } }) {
            self = .integers(values.map { if case .int(let number) = $0 { number } else { nil } })
        } else if values.allSatisfy({ if case .string = $0 { true } else { $0 == .null } }) {
            self = .strings(values.map { if case .string(let text) = $0 { text } else { nil } })
        } else {
            self = .scalars(values)
        }
    }

    var count: Int {
        switch self {
        case .integers(let values): values.count
        case .strings(let values): values.count
        case .ascii(let values): values.count
        case .scalars(let values): values.count
        }
    }

    /// The order of the values at positions `a` and `b`, nil first.
    func order(_ a: Int, _ b: Int) -> Int {
        switch self {
        case .integers(let values): return Self.order(values[a], values[b])
        case .strings(let values):
            switch (values[a], values[b]) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?): return QueryScalar.compareBytes(a, b)
            }
        case .ascii(let values): return values.order(a, b)
        case .scalars(let values): return QueryPlanner.sortOrder(values[a], values[b])
        }
    }

    private static func order<T: Comparable>(_ a: T?, _ b: T?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let a?, let b?): return a < b ? -1 : (a == b ? 0 : 1)
        }
    }
}
