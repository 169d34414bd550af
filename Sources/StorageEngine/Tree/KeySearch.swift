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
    /// separators not greater than `key`. `onGuess` learns the child the interpolation points
    /// to (see `firstIndex`).
    @inline(__always)
    static func childIndex(
        for key: UInt64, separators keys: UnsafeBufferPointer<UInt64>, within span: KeySpan = KeySpan(),
        onGuess: (Int) -> Void = { _ in }
    ) -> Int {
        key == .max ? keys.count : firstIndex(notLessThan: key + 1, in: keys, from: 0, within: span, guessing: .child, onGuess: onGuess)
    }

    /// What an interpolated guess estimates.
    enum Guess {
        /// The position of a key among keys: a leaf's, whose keys are the values sought, so
        /// the estimate of a key present lands on it.
        case key
        /// A branch's child: the number of separators not greater than a key, which falls
        /// between two separators. `n` separators cut the span a parent gives into `n + 1`
        /// children, and between its first and last separator lie `n - 1` gaps with one child
        /// before them; a guess made as for a key lands one child short for a key in half the
        /// children, and the lookup then loads the wrong child's lines before the right one's.
        case child
    }

    /// The index of the first of `keys` not less than `key`, at `start` or after (the keys
    /// before `start` must be less). `span` is what the node's parent knows of its keys.
    /// `onGuess` learns the interpolated guess before its key is read, so that a caller can
    /// start loading what it will read at that position while the key's line arrives.
    /// `guessing` says what the guess estimates (see `Guess`); the answer does not depend on it.
    @inline(__always)
    static func firstIndex(
        notLessThan key: UInt64, in keys: UnsafeBufferPointer<UInt64>, from start: Int, within span: KeySpan = KeySpan(),
        guessing: Guess = .key, onGuess: (Int) -> Void = { _ in }
    ) -> Int {
        var low = start
        var high = keys.count
        if high - low > interpolationMinimum {
            // The estimated answer, which for a child can be `high` (the last child), and the
            // key read first, which cannot.
            let estimate: Int
            if start == 0, let lower = span.lower, let upper = span.upper, lower <= key, key < upper {
                // The parent's separators bound the keys: the guess reads no key first (the
                // last key is a line of its own, a miss in a node not read lately).
                let fraction = Double(key - lower) / Double(upper - lower)
                let slots = guessing == .child ? high + 1 : high
                estimate = min(Int(fraction * Double(slots)), high)
            } else {
                let first = keys[low]
                let last = keys[high - 1]
                if key <= first { return low }
                if key > last { return high }
                // first < key <= last: the answer is in (low, high - 1].
                let gaps = Double(key - first) / Double(last - first) * Double(high - 1 - low)
                estimate = min(low + Int(guessing == .child ? gaps.rounded(.up) : gaps), high - 1)
            }
            onGuess(estimate)
            let guess = min(estimate, high - 1)
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
        return halving(notLessThan: key, in: keys, from: low, to: high)
    }

    /// The index of the first of `keys[low..<high]` not less than `key`, or `high` if none is
    /// (the keys before `low` must be less), found by halving the range.
    @inline(__always)
    static func halving(notLessThan key: UInt64, in keys: UnsafeBufferPointer<UInt64>, from low: Int, to high: Int) -> Int {
        var (low, high) = (low, high)
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
