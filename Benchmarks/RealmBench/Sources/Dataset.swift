/// The rows every engine loads: keys 1...count, ten Int64 columns, column c holding a seeded
/// pseudo-random value below 10^(1 + c % 6).
struct Dataset {
    static let columnCount = 10
    let count: Int
    /// Row-major: row i's columns are values[i * 10 ..< i * 10 + 10].
    let values: [Int64]

    init(count: Int, seed: UInt64 = 42) {
        self.count = count
        var generator = BenchGenerator(seed: seed)
        var values = [Int64]()
        values.reserveCapacity(count * Dataset.columnCount)
        for _ in 0..<count {
            for column in 0..<Dataset.columnCount {
                var bound: Int64 = 1
                for _ in 0..<(1 + column % 6) { bound *= 10 }
                values.append(Int64(generator.next() % UInt64(bound)))
            }
        }
        self.values = values
    }

    /// Columns of the row with key `key` (1-based).
    @inline(__always)
    func row(_ key: UInt64) -> ArraySlice<Int64> {
        let start = Int(key - 1) * Dataset.columnCount
        return values[start..<(start + Dataset.columnCount)]
    }

    /// `count` keys drawn uniformly from 1...self.count.
    func randomKeys(_ count: Int, seed: UInt64) -> [UInt64] {
        var generator = BenchGenerator(seed: seed)
        return (0..<count).map { _ in generator.next() % UInt64(self.count) + 1 }
    }
}
