/// The search of a node's sorted keys, shared by leaves and branches.
///
/// A node's keys are usually spread evenly (row keys count up, index keys of varied values
/// scatter), so in a node of more than a few keys one guess by interpolation, then a gallop
/// from the guess, replaces most probes of a binary search. In a node not read lately each
/// probe is a cache miss, which is what an indexed lookup spends its time on: a branch of 500
/// children took nine probes to halve, where the guess lands within a line or two of the
/// answer. Keys spread unevenly only make the gallop longer: it doubles its step, so it costs
/// at most twice a binary search.
enum KeySearch {
    /// Nodes with at most this many keys from the start are searched by halving alone.
    static let interpolationMinimum = 16

    /// The child of a branch with separators `keys` whose range holds `key`: the number of
    /// separators not greater than `key`.
    @inline(__always)
    static func childIndex(
        for key: UInt64, separators keys: UnsafeBufferPointer<UInt64>, within span: KeySpan = KeySpan(),
        onGuess: (Int) -> Void = { _ in }
    ) -> Int {
        key == .max ? keys.count : firstIndex(notLessThan: key + 1, in: keys, from: 0, within: span, onGuess: onGuess)
    }

    /// The index of the first of `keys` not less than `key`, at `start` or after (the keys
    /// before `start` must be less). `span` is what the node's parent knows of its keys.
    /// `onGuess` learns the interpolated guess before its key is read, so that a caller can
    /// start loading what it will read at that position while the key's line arrives.
    @inline(__always)
    static func firstIndex(
        notLessThan key: UInt64, in keys: UnsafeBufferPointer<UInt64>, from start: Int, within span: KeySpan = KeySpan(),
        onGuess: (Int) -> Void = { _ in }
    ) -> Int {
        var low = start
        var high = keys.count
        if high - low > interpolationMinimum {
            let guess: Int
            if start == 0, let lower = span.lower, let upper = span.upper, lower <= key, key < upper {
                // The parent's separators bound the keys: the guess reads no key first (the
                // last key is a line of its own, a miss in a node not read lately).
                let fraction = Double(key - lower) / Double(upper - lower)
                guess = min(Int(fraction * Double(high)), high - 1)
            } else {
                let first = keys[low]
                let last = keys[high - 1]
                if key <= first { return low }
                if key > last { return high }
                // first < key <= last: the answer is in (low, high - 1].
                let fraction = Double(key - first) / Double(last - first)
                guess = min(low + Int(fraction * Double(high - 1 - low)), high - 1)
            }
            onGuess(guess)
            var bound = 1
            if keys[guess] < key {
                while guess + bound < high && keys[guess + bound] < key { bound <<= 1 }
                low = guess + (bound >> 1) + 1
                high = min(guess + bound, high)
            } else {
                while guess - bound >= low && keys[guess - bound] >= key { bound <<= 1 }
                high = guess - (bound >> 1)
                low = max(guess - bound + 1, low)
            }
        }
        while low < high {
            let middle = (low + high) >> 1
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// What a branch knows of a child's keys from its separators: each key is at least `lower` and
/// less than `upper` (nil where the branch has no separator on that side).
package struct KeySpan {
    var lower: UInt64?
    var upper: UInt64?

    init(lower: UInt64? = nil, upper: UInt64? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// The span of child `index` of a branch with separators `keys`, the branch's own span
    /// filling in at the edges.
    @inline(__always)
    init(child index: Int, of keys: UnsafeBufferPointer<UInt64>, within span: KeySpan) {
        lower = index > 0 ? keys[index - 1] : span.lower
        upper = index < keys.count ? keys[index] : span.upper
    }
}
