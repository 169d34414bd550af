import CPrefetch

/// Where the page cache last kept a leaf's value ends and bytes, and which keys the leaf holds:
/// what a lookup needs to start loading a key's value before it has found the leaf (see
/// `LeafDirectory`).
///
/// A hint is only ever prefetched from, never read through. A leaf evicted and read again
/// lives elsewhere, and its old hint points at freed memory: a prefetch of any address is
/// harmless (it does not fault and changes nothing a load returns), and the descent that
/// reaches the leaf's summary writes the hint anew.
struct LeafHint {
    var ends: UnsafeRawPointer?
    var bytes: UnsafeRawPointer?
    var runStart: UInt32 = 0
    /// Zero when nothing is known yet or the leaf's keys are not a run (see
    /// `NodeSummary.runStart`): without a run, no position can be known before the keys are read.
    var keyCount: UInt32 = 0
    var byteCount: UInt32 = 0

    /// Starts loading where the leaf would keep `key`'s value end and bytes.
    @inline(__always)
    func prefetch(for key: UInt64) {
        let offset = key &- UInt64(runStart)
        guard offset < UInt64(keyCount), let ends else { return }
        let position = Int(offset)
        asyncrealm_prefetch(ends + max(position - 1, 0) * MemoryLayout<UInt32>.stride)
        LeafHint.prefetchValue(at: position, bytes: bytes, byteCount: Int(byteCount), keyCount: Int(keyCount))
    }

    /// Records where the leaf `summary` describes keeps its arrays; writes only when that
    /// changed, because a line written on one core is taken from every other core's cache.
    @inline(__always)
    mutating func record(_ summary: NodeSummary) {
        guard ends != summary.entries else { return }
        ends = summary.entries
        bytes = summary.bytes
        runStart = summary.runStart
        keyCount = summary.isRun ? UInt32(summary.keyCount) : 0
        byteCount = summary.byteCount
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
