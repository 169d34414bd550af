import StorageEngine

/// The rows of a collection as evaluating it read them (a filter testing them, a sort
/// reading its values), kept in the order of its keys when the evaluation is for iterating
/// it: the iteration makes each accessor from its kept row instead of looking the keys up
/// again. A sorted collection's keys fall all over the table, so those lookups visited
/// most leaves for a few rows each. Kept for collections up to `maximumKeptRows` objects
/// and `maximumKeptBytes` of rows; bigger ones are looked up as they are iterated.
struct KeptRows {
    let buffer: RowBuffer
    var ranges: [Range<Int>]

    static let maximumKeptRows = 1 << 20
    static let maximumKeptBytes = 64 << 20

    /// Gathers rows as a query reads them, in order, until they pass the budget. The buffer is
    /// made for the first row kept: a query that matches nothing allocates nothing.
    struct Collector {
        private var buffer: RowBuffer?
        private var ranges: [Range<Int>] = []
        private var enabled: Bool
        /// The realm and the class whose rows are kept, not counted: a collector lives inside
        /// one evaluation, whose planner holds both. Counting them, and the class's name, was
        /// three references for every query, most of which keep no row.
        private let realm: Unmanaged<Realm>
        private let info: Unmanaged<ClassInfo>
        private let expectedRows: Int

        /// `expectedRows` sizes the buffer when the number of rows is known (a sort's keys).
        /// The caller keeps `realm` and `info` alive for as long as the collector lives.
        init(realm: Realm, info: ClassInfo, enabled: Bool, expectedRows: Int = 0) {
            self.realm = .passUnretained(realm)
            self.info = .passUnretained(info)
            self.enabled = enabled && expectedRows <= maximumKeptRows
            self.expectedRows = expectedRows
        }

        mutating func keep(_ row: RowView) {
            guard enabled else { return }
            if buffer == nil {
                buffer = RowBuffer.make(realm: realm.takeUnretainedValue(), tableName: info.takeUnretainedValue().schema.className, capacity: expectedRows * 48)
                ranges.reserveCapacity(expectedRows)
            }
            guard ranges.count < maximumKeptRows, buffer!.byteCount + row.bytes.count <= maximumKeptBytes else {
                (buffer, ranges, enabled) = (nil, [], false)
                return
            }
            ranges.append(buffer!.append(row))
        }

        /// The rows kept, if there is one for each of the `count` keys.
        func rows(count: Int) -> KeptRows? {
            guard let buffer, ranges.count == count else { return nil }
            return KeptRows(buffer: buffer, ranges: ranges)
        }
    }

    /// The rows at `positions`, copied in that order into a buffer of their own. Iterating
    /// then reads the buffer front to back; reading the sort's buffer in sorted order missed
    /// the cache at every object, inside the accessor, where the misses cannot overlap as
    /// they do in this copy loop.
    func reordered(by positions: [Int]) -> KeptRows {
        let sorted = RowBuffer.make(realm: buffer.realm, tableName: buffer.tableName, capacity: buffer.byteCount)
        return KeptRows(buffer: sorted, ranges: positions.map { sorted.append(ranges[$0], of: buffer) })
    }
}
