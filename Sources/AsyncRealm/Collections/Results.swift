import StorageEngine

/// The objects of one class in a realm, in insertion order. Live: reading it after the realm
/// has changed (a write through this handle, a refresh) shows the change.
public final class Results<Element: Object>: RandomAccessCollection {
    let realm: Realm
    let info: ClassInfo
    private var cachedKeys: [UInt64] = []
    private var cachedStamp = -1

    init(realm: Realm, info: ClassInfo) {
        self.realm = realm
        self.info = info
    }

    /// The keys of the objects, reread when the realm has changed since the last read.
    private var keys: [UInt64] {
        realm.checkThread()
        if cachedStamp != realm.stamp {
            cachedKeys = (try? realm.readTable(info)?.keys()) ?? []
            cachedStamp = realm.stamp
        }
        return cachedKeys
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The number of objects, from the table's row count: no keys are read.
    public var count: Int {
        realm.checkThread()
        return realm.readTable(info)?.count ?? 0
    }

    public subscript(position: Int) -> Element {
        realm.accessor(of: Element.self, key: keys[position], info: info)
    }

    /// Iterates in key order, reading rows a batch at a time in one pass over the table instead
    /// of looking each object up: every accessor starts with its row already decoded.
    public func makeIterator() -> Iterator {
        realm.checkThread()
        return Iterator(results: self)
    }

    public struct Iterator: IteratorProtocol {
        private let results: Results
        private var batch: [Element] = []
        private var position = 0
        private var nextKey: UInt64 = 0
        private var exhausted = false
        private static var batchSize: Int { 256 }

        init(results: Results) {
            self.results = results
        }

        public mutating func next() -> Element? {
            if position == batch.count {
                guard !exhausted else { return nil }
                refill()
                guard !batch.isEmpty else { return nil }
            }
            position += 1
            return batch[position - 1]
        }

        private mutating func refill() {
            batch.removeAll(keepingCapacity: true)
            position = 0
            let realm = results.realm
            guard let table = realm.readTable(results.info) else {
                exhausted = true
                return
            }
            // The batch's rows, decoded into one buffer its accessors share.
            let buffer = RowBuffer()
            buffer.reserveCapacity(Self.batchSize * results.info.schema.storedProperties.count)
            var rows: [(key: UInt64, range: Range<Int>)] = []
            rows.reserveCapacity(Self.batchSize)
            try? table.scan(nextKey...UInt64.max) { key, row in
                rows.append((key, try buffer.append(row)))
                return rows.count < Self.batchSize
            }
            if rows.count < Self.batchSize { exhausted = true }
            for (key, range) in rows {
                batch.append(realm.accessor(of: Element.self, key: key, row: (buffer, range), info: results.info))
            }
            if let last = rows.last?.key { nextKey = last &+ 1 }
            if nextKey == 0 { exhausted = true }
        }
    }
}
