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
/// for one of them. The first leaf recorded sets `shift` so that an entry covers at most a
/// leaf's keys: an entry straddling two leaves holds whichever was found last, and a key of
/// the other finds it in the neighbouring entry on its side (`hint(near:)`). Only leaves whose
/// keys are a run are recorded (no position can be known in another before its keys are
/// read). The entries are direct-mapped, their count a power of two that grows with the keys
/// recorded up to `maximumCount`; keys past that share entries, and a hint is used only for a
/// key inside its leaf's run.
///
/// A leaf evicted, or a tree changed since, leaves a hint pointing at memory freed or reused,
/// or at a leaf the tree no longer has; a prefetch of any address is harmless. A hint is read
/// through, answering a lookup without a descent (`PageCache.locate`), only when it was
/// recorded in the current era: under the root of the tree read now (`enter(tree:)`), with no
/// node having left the cache since (`synchronize(cacheGeneration:)`). Trees never change, so
/// a leaf found under the same root still holds the key, and a node still cached keeps its
/// arrays. A leaf read through its hint is not marked as used for the cache's CLOCK: the hand
/// only moves while the cache evicts, and the first eviction starts a new era, after which the
/// next lookup of each leaf descends and marks it again.
///
/// Not `Sendable`: one reader owns it (a realm's class info, confined with its realm).
package final class LeafDirectory {
    /// The most entries a directory grows to: 512 KiB of hints, enough for one entry per 128
    /// keys of two million rows stored 186 to a leaf (the benchmark's).
    static let maximumCount = 1 << 14

    private var entries: UnsafeMutablePointer<LeafHint>
    /// A power of two.
    private(set) var count = 1
    /// The base-2 logarithm of the keys an entry covers: all of them until a leaf is recorded.
    private(set) var shift: UInt64 = 63
    /// The root of the tree the hints are recorded in; nil until a reader enters one, and
    /// until then no hint is read through.
    private var tree: PageRef?
    /// The cache's count of nodes gone (`PageCache.State.generation`) when the era began.
    private var cacheGeneration: UInt64 = 0
    /// Hints recorded in this era may be read through. Never zero, a hint's "none".
    private var era: UInt32 = 1

    package init() {
        entries = .allocate(capacity: 1)
        entries.initialize(to: LeafHint())
    }

    deinit { entries.deallocate() }

    /// Starts loading where the leaf last found for a key near `key` keeps `key`'s value end and
    /// bytes, if `key` is inside that leaf's run.
    @inline(__always)
    package func prefetch(_ key: UInt64) {
        hint(near: key).prefetch(for: key)
    }

    /// The hint of `key`'s entry, or, when `key` is outside that hint's run, of the neighbour
    /// on `key`'s side: an entry straddling two leaves holds the one last found, and the
    /// neighbour usually the other (with 128 keys to an entry and 186 to a leaf, two entries
    /// in three straddle).
    @inline(__always)
    private func hint(near key: UInt64) -> LeafHint {
        let home = index(of: key)
        let hint = entries[home]
        if hint.position(of: key) != nil { return hint }
        let neighbour = key < UInt64(hint.runStart) ? home &- 1 : home &+ 1
        return entries[neighbour & (count - 1)]
    }

    /// Says that the lookups from now on are in the tree rooted at `root`: a tree other than
    /// the last one starts a new era.
    @inline(__always)
    package func enter(tree root: PageRef) {
        if root != tree {
            tree = root
            startEra()
        }
    }

    /// Says how many nodes have left the cache, under the cache's lock: any since the era began
    /// starts a new one, since a hint recorded before may point into a node gone.
    @inline(__always)
    func synchronize(cacheGeneration generation: UInt64) {
        if generation != cacheGeneration {
            cacheGeneration = generation
            startEra()
        }
    }

    /// Where `key`'s value is, read through its hint if the hint was recorded in this era
    /// (see `LeafHint.value(for:)`); nil otherwise. Under the cache's lock, after
    /// `synchronize(cacheGeneration:)`.
    @inline(__always)
    func value(for key: UInt64) -> (bytes: UnsafeRawPointer, range: Range<Int>, isOverflow: Bool)? {
        guard tree != nil else { return nil }
        let hint = hint(near: key)
        guard hint.era == era else { return nil }
        return hint.value(for: key)
    }

    private func startEra() {
        era &+= 1
        guard era == 0 else { return }
        // Wrapped: the hints of four billion eras ago would pass for this one's.
        for index in 0..<count { entries[index].era = 0 }
        era = 1
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
        entries[index(of: key)].record(leaf, era: era)
    }

    /// Sets the shift from the first leaf recorded, and grows the entries to cover `key`. The
    /// hints recorded so far are dropped: the next lookups record them again.
    private func reshape(for leaf: NodeSummary, key: UInt64) {
        if shift == 63 {
            let keysPerLeaf = max(Int(leaf.keyCount), 1)
            shift = UInt64(max(Int.bitWidth - 1 - keysPerLeaf.leadingZeroBitCount, 0))
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
