/// The sum of doubles given in order, added in eight interleaved lanes: the value at position
/// `i` of the sequence goes to lane `i % 8`, and the lanes are added in a fixed tree at the end
/// (`total`).
///
/// Added into one running total, each addition waits for the one before it (four cycles on
/// this machine's cores, so a sum of 100,000 doubles took 0.19 ms however they were stored).
/// Eight lanes are eight independent chains, which a packed column adds eight at a time.
///
/// Every sum of doubles in AsyncRealm uses this, whichever path reads the values (a leaf's
/// packed column with a bitmap, a scan of rows, a list of values), so the same values in the
/// same order give the same sum, to the bit, on every path. It may differ in the last bits
/// from adding them one by one (floating-point addition is not associative); neither order is
/// more right, and Realm's own engine adds a leaf at a time. Zeros and infinities add up as they
/// do one by one (both infinities give NaN, no value gives +0). A NaN is left out, as Realm's
/// aggregates leave it out: it takes its lane and adds nothing to it, so that the lanes of the
/// values after it are the same whichever path counted it.
package struct DoubleSum {
    private var lanes = SIMD8<Double>(repeating: 0)
    /// The lane the next value goes to.
    private var next = 0

    package init() {}

    /// Adds `value` as the next value of the sequence; returns false for a NaN, left out.
    /// (Adding +0 instead would change nothing either: a lane is never -0, since it starts at
    /// +0 and +0 + -0 is +0.)
    @inline(__always) @discardableResult
    package mutating func add(_ value: Double) -> Bool {
        let counted = !value.isNaN
        if counted { lanes[next] += value }
        next = (next &+ 1) & 7
        return counted
    }

    /// Adds `values`, in order, as the next values of the sequence: eight at a time once the
    /// next value's lane is the first. Returns how many of them are NaN (left out).
    @inline(__always) @discardableResult
    package mutating func add(contentsOf values: UnsafeBufferPointer<Double>) -> Int {
        guard let base = values.baseAddress else { return 0 }
        var index = 0
        var nans = 0
        while next != 0 && index < values.count {
            if !add(base[index]) { nans &+= 1 }
            index &+= 1
        }
        let raw = UnsafeRawPointer(base)
        var nanLanes = SIMD8<Int64>(repeating: 0)
        while index &+ 8 <= values.count {
            let eight = raw.loadUnaligned(fromByteOffset: index &* 8, as: SIMD8<Double>.self)
            let isNaN = eight .!= eight
            lanes += eight.replacing(with: 0, where: isNaN)
            nanLanes &+= SIMD8<Int64>(repeating: 0).replacing(with: 1, where: isNaN)
            index &+= 8
        }
        nans &+= Int(nanLanes.wrappedSum())
        while index < values.count {
            if !add(base[index]) { nans &+= 1 }
            index &+= 1
        }
        return nans
    }

    /// The sum of every value added: the lanes added pairwise, lane `i` with lane `i + 4`, then
    /// `i` with `i + 2`, then the two left.
    package var total: Double {
        let four = lanes.lowHalf + lanes.highHalf
        let two = four.lowHalf + four.highHalf
        return two[0] + two[1]
    }
}

extension Sequence where Element == Double {
    /// The elements' sum as `DoubleSum` adds them.
    package func laneSum() -> Double {
        var sum = DoubleSum()
        for value in self { sum.add(value) }
        return sum.total
    }
}
