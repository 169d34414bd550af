import CPrefetch

/// Where the page cache last kept a leaf's value ends and bytes, and which keys the leaf holds:
/// what a lookup needs to start loading a key's value before it has found the leaf (see
/// `LeafDirectory`).
///
/// A leaf evicted and read again lives elsewhere, and its old hint points at freed memory: a
/// prefetch of any address is harmless (it does not fault and changes nothing a load returns),
/// and the descent that reaches the leaf's summary writes the hint anew. A hint is read
/// through (`value(for:)`) only while its directory vouches for it, by its `era`.
struct LeafHint {
    var ends: UnsafeRawPointer?
    var bytes: UnsafeRawPointer?
    var runStart: UInt32 = 0
    /// Zero when nothing is known yet or the leaf's keys are not a run (see
    /// `NodeSummary.runStart`): without a run, no position can be known before the keys are read.
    var keyCount: UInt32 = 0
    var byteCount: UInt32 = 0
    /// The directory's era when the hint was recorded; zero for none (see `LeafDirectory`).
    var era: UInt32 = 0

    /// `key`'s position in the leaf, if `key` is in the leaf's run.
    @inline(__always)
    func position(of key: UInt64) -> Int? {
        let offset = key &- UInt64(runStart)
        return offset < UInt64(keyCount) ? Int(offset) : nil
    }

    /// Starts loading where the leaf would keep `key`'s value end and bytes.
    @inline(__always)
    func prefetch(for key: UInt64) {
        guard let position = position(of: key), let ends else { return }
        asyncrealm_prefetch(ends + max(position - 1, 0) * MemoryLayout<UInt32>.stride)
        LeafHint.prefetchValue(at: position, bytes: bytes, byteCount: Int(byteCount), keyCount: Int(keyCount))
    }

    /// Where the leaf keeps `key`'s value in its bytes, which start at `bytes`, and whether it
    /// is an overflow reference; nil if `key` is outside the leaf's run. Reads the leaf's
    /// arrays: only for a hint its directory vouches for.
    @inline(__always)
    func value(for key: UInt64) -> (bytes: UnsafeRawPointer, range: Range<Int>, isOverflow: Bool)? {
        guard let position = position(of: key), let ends, let bytes else { return nil }
        let (range, isOverflow) = NodeSummary.valueRange(at: position, ends: ends.assumingMemoryBound(to: UInt32.self))
        return (bytes, range, isOverflow)
    }

    /// Records where the leaf `summary` describes keeps its arrays, in era `era`; writes only
    /// when that changed, because a line written on one core is taken from every other core's
    /// cache.
    @inline(__always)
    mutating func record(_ summary: NodeSummary, era: UInt32) {
        guard ends != summary.entries || self.era != era else { return }
        ends = summary.entries
        bytes = summary.bytes
        runStart = summary.runStart
        keyCount = summary.isRun ? UInt32(summary.keyCount) : 0
        byteCount = summary.byteCount
        self.era = era
    }

    /// Starts loading the bytes where values of average length would put value `position` of
    /// a leaf with `keyCount` values in `byteCount` bytes: the line of that estimate, the one
    /// before and the two after. A row's start strays from the estimate as the lengths of the
    /// rows before it do: in the benchmark's rows (39 bytes on average, 186 to a leaf) one row in
    /// five lay outside the estimate's line and the next, and one in three hundred outside these
    /// four, each of those waiting a second time for memory.
    @inline(__always)
    static func prefetchValue(at position: Int, bytes: UnsafeRawPointer?, byteCount: Int, keyCount: Int) {
        guard let bytes, byteCount > 0, keyCount > 0 else { return }
        let last = byteCount - 1
        let estimate = byteCount * position / keyCount
        asyncrealm_prefetch(bytes + max(estimate - 64, 0))
        asyncrealm_prefetch(bytes + estimate)
        asyncrealm_prefetch(bytes + min(estimate + 64, last))
        asyncrealm_prefetch(bytes + min(estimate + 128, last))
    }
}
