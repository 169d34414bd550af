import Testing
@testable import StorageEngine

@Suite("Sums of doubles")
struct DoubleSumTests {
    /// Eight running totals, value `i` into total `i % 8`, added pairwise at the end: what
    /// `DoubleSum` is documented to compute, written out with scalars.
    static func reference(_ values: [Double]) -> Double {
        var lanes = [Double](repeating: 0, count: 8)
        for (index, value) in values.enumerated() { lanes[index % 8] += value }
        let four = (0..<4).map { lanes[$0] + lanes[$0 + 4] }
        return (four[0] + four[2]) + (four[1] + four[3])
    }

    static func randomValues(_ count: Int, _ generator: inout some RandomNumberGenerator) -> [Double] {
        (0..<count).map { _ in Double.random(in: -1e9...1e9, using: &generator) * (Bool.random(using: &generator) ? 1 : 1e-7) }
    }

    @Test("values added one at a time, in runs of any length from any lane, give the documented lanes' sum to the bit")
    func runsFromAnyLane() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let values = Self.randomValues(Int.random(in: 0..<300, using: &generator), &generator)
            let expected = Self.reference(values)
            #expect(values.laneSum().bitPattern == expected.bitPattern)
            // The same values cut into runs at random places, some added one by one.
            var sum = DoubleSum()
            var start = 0
            while start < values.count {
                let end = min(values.count, start + Int.random(in: 1...40, using: &generator))
                if Bool.random(using: &generator) {
                    _ = values[start..<end].withUnsafeBufferPointer { sum.add(contentsOf: $0) }
                } else {
                    for value in values[start..<end] { sum.add(value) }
                }
                start = end
            }
            #expect(sum.total.bitPattern == expected.bitPattern, "\(values.count) values")
        }
    }

    @Test("the test values round: adding them one by one gives another sum, so the tests above could fail")
    func orderMatters() {
        var generator = SystemRandomNumberGenerator()
        let differing = (0..<20).filter { _ in
            let values = Self.randomValues(1000, &generator)
            return values.reduce(0, +).bitPattern != values.laneSum().bitPattern
        }
        #expect(differing.count >= 10)
    }

    @Test("zeros and infinities add up as they do one by one; NaN is left out, as Realm's aggregates leave it out")
    func specialValues() {
        #expect(DoubleSum().total.bitPattern == (0.0).bitPattern)
        #expect([-0.0, -0.0, -0.0].laneSum().bitPattern == (0.0).bitPattern)
        #expect([1, .infinity, 2].laneSum() == .infinity)
        #expect(Array(repeating: -Double.infinity, count: 20).laneSum() == -.infinity)
        #expect([Double.infinity, 1, -.infinity].laneSum().isNaN)
        #expect(([1, 2, .nan] + Array(repeating: 1.5, count: 30)).laneSum() == 48)
        #expect([Double.nan, .nan].laneSum().bitPattern == (0.0).bitPattern)
        // Eight at a time or one by one, a NaN is counted as left out, and the values after it
        // keep their lanes: the same bits either way.
        let values = (0..<100).map { $0 % 7 == 3 ? Double.nan : 1 / Double($0 + 1) }
        var eights = DoubleSum()
        let nans = values.withUnsafeBufferPointer { eights.add(contentsOf: $0) }
        var ones = DoubleSum()
        for value in values { ones.add(value) }
        #expect(nans == values.filter(\.isNaN).count)
        #expect(eights.total.bitPattern == ones.total.bitPattern)
        #expect(Array(repeating: 0.5, count: 1001).laneSum() == 500.5)
    }
}
