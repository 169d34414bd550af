// Shared with the SQLCipher peer process (Benchmarks/SQLCipherPeer links this file): the rows
// of the object workloads, made the same way on both sides of the pipe.

/// One row of the object workloads' data.
struct BenchRow {
    let id: Int
    let name: String
    let age: Int
    let score: Double
    let active: Bool
    let created: Double

    static func make(count: Int, firstID: Int = 1, seed: UInt64 = 9) -> [BenchRow] {
        var generator = BenchGenerator(seed: seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return (0..<count).map { index in
            let length = 8 + Int(generator.next() % 17)
            let name = String((0..<length).map { _ in letters[Int(generator.next() % 26)] })
            return BenchRow(
                id: firstID + index, name: name, age: Int(generator.next() % 100),
                score: Double(generator.next() % 1_000_000) / 100, active: generator.next() % 2 == 0,
                created: 1_600_000_000 + Double(generator.next() % 100_000_000))
        }
    }
}

/// The data of the object workloads, made the same way wherever they run (realm-bench and
/// its SQLCipher peer): the rows a bulk write adds, the rows the single writes add after them
/// (a thousand per run), and the keys the lookups read.
struct ObjectWorkloadData {
    let rows: [BenchRow]
    let extra: [BenchRow]
    let lookupIDs: [Int]

    init(objectCount: Int, runs: Int) {
        rows = BenchRow.make(count: objectCount)
        extra = BenchRow.make(count: 1000 * (runs + 1), firstID: objectCount + 1, seed: 10)
        var generator = BenchGenerator(seed: 11)
        lookupIDs = (0..<objectCount).map { _ in Int(generator.next() % UInt64(objectCount)) + 1 }
    }
}

/// xorshift64*: fast, seedable, the same sequence on every run.
struct BenchGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}
