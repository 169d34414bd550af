/// Where the leaves holding a tree's keys were last seen in the page cache, by key, kept by one
/// reader of the tree: what lets a lookup start loading its value before it does anything else.
///
/// A lookup of a random key in a large tree waits for memory for the value, whose address it
/// learns only at the end of its descent. A reader that keeps a directory calls `prefetch(_:)`
/// first, and the value's end and bytes then load while it does its other work (a realm makes
/// the object it will return) and descends the tree; the descent records the leaf it found
/// (`PageCache.locate(_:from:copyingInto:noting:)`).
///
/// An entry covers `2^shift` consecutive keys and holds the `LeafHint` of the leaf last found
/// for one of them. The first leaf recorded sets `shift` so that an entry covers at most half
/// of a leaf's keys: most entries then lie inside one leaf, and one that straddles two holds
/// whichever was found last. Only leaves whose keys are a run are recorded (no position can be
/// known in another before its keys are read). The entries are direct-mapped, their count a
/// power of two that grows with the keys recorded up to `maximumCount`; keys past that share
/// entries, and a hint is used only for a key inside its leaf's run.
///
/// A hint is only ever prefetched from, never read through (see `LeafHint`): a leaf evicted,
/// or a tree changed since, leaves a hint pointing at memory freed or reused, and a prefetch of
/// any address is harmless.
///
/// Not `Sendable`: one reader owns it (a realm's class info, confined with its realm).
package final class LeafDirectory {
    /// The most entries a directory grows to: 512 KiB of hints, enough for one entry per 64
    /// keys of a million rows stored 186 to a leaf (the benchmark's).
    static let maximumCount = 1 << 14

    private var entries: UnsafeMutablePointer<LeafHint>
    /// A power of two.
    private(set) var count = 1
    /// The base-2 logarithm of the keys an entry covers: all of them until a leaf is recorded.
    private(set) var shift: UInt64 = 63

    package init() {
        entries = .allocate(capacity: 1)
        entries.initialize(to: LeafHint())
    }

    deinit { entries.deallocate() }

    /// Starts loading where the leaf last found for a key near `key` keeps `key`'s value end and
    /// bytes, if `key` is inside that leaf's run.
    @inline(__always)
    package func prefetch(_ key: UInt64) {
        entries[index(of: key)].prefetch(for: key)
    }

    /// The hint `key` finds, for tests.
    func hint(for key: UInt64) -> LeafHint { entries[index(of: key)] }

    @inline(__always)
    private func index(of key: UInt64) -> Int {
        Int(truncatingIfNeeded: key >> shift) & (count - 1)
    }

    /// Records that `leaf`, a summary in the page cache, holds `key`.
    @inline(__always)
    func record(_ leaf: NodeSummary, for key: UInt64) {
        guard leaf.isRun else { return }
        let needed = Int(truncatingIfNeeded: key >> shift) &+ 1
        if shift == 63 || (needed > count && count < LeafDirectory.maximumCount) { reshape(for: leaf, key: key) }
        entries[index(of: key)].record(leaf)
    }

    /// Sets the shift from the first leaf recorded, and grows the entries to cover `key`. The
    /// hints recorded so far are dropped: the next lookups record them again.
    private func reshape(for leaf: NodeSummary, key: UInt64) {
        if shift == 63 {
            let keysPerLeaf = max(Int(leaf.keyCount), 1)
            shift = UInt64(max(Int.bitWidth - 1 - keysPerLeaf.leadingZeroBitCount - 1, 0))
        }
        let needed = Int(truncatingIfNeeded: key >> shift) &+ 1
        var grown = count
        while grown < needed && grown < LeafDirectory.maximumCount { grown <<= 1 }
        entries.deallocate()
        entries = .allocate(capacity: grown)
        entries.initialize(repeating: LeafHint(), count: grown)
        count = grown
    }
}
