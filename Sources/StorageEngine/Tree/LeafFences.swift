import CPrefetch

/// A sample of the keys of each cached leaf whose keys are not a run, kept by `PageCache` in a
/// block of its own: what lets a lookup find its key in two waits for memory where a
/// search of the keys alone waits five or six times.
///
/// A search of a leaf's sorted keys reads one key, then another chosen from it, and so on: each
/// read waits for the one before, and in a leaf not read lately each is a miss. Interpolating
/// the first guess makes that one read for keys spread evenly (row keys), but an index on
/// strings keys its leaves by the first eight bytes of the values, and text uses few of each
/// byte's 256 values (lowercase letters: 26), so the guess lands lines away and the gallop and
/// halving after it read line after line: 5 to 6 distinct lines for leaves of 128 to 512 such
/// keys. The fences are every `step`-th key, at most `perBlock` of them in four lines, all
/// loaded at once; searching them leaves a range of `step` keys (one or two lines) to search.
///
/// A leaf that uses fences (`NodeSummary.usesFences`) takes a block when the cache places it
/// and gives it back when it leaves its slot; its summary keeps the block's index
/// (`NodeSummary.fenceBlock`). The blocks are as many as such leaves cached at once, not as
/// the cache's slots: a cache of many small nodes holds few leaves with fences.
///
/// A class, owning its blocks' memory; `@unchecked Sendable` because the cache reaches it only
/// under its lock, as it does its `OffsetTable`.
final class LeafFences: @unchecked Sendable {
    /// The most fences a leaf has: 256 bytes, four lines.
    static let perBlock = 32
    /// Leaves with more keys than this use fences; fewer keys fit in a few lines, which their
    /// search reads anyway.
    static let minimumKeys = 32

    private var blocks: UnsafeMutablePointer<UInt64>
    private var capacity: Int
    /// Blocks handed out at least once; those given back wait in `freeBlocks`.
    private var handedOut = 0
    private var freeBlocks: [Int] = []

    init() {
        capacity = 16
        blocks = Self.allocate(blocks: capacity)
    }

    deinit { blocks.deallocate() }

    /// Blocks held by leaves now, for tests.
    var blocksInUse: Int { handedOut - freeBlocks.count }

    private static func allocate(blocks: Int) -> UnsafeMutablePointer<UInt64> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: blocks * perBlock * MemoryLayout<UInt64>.stride, alignment: 64)
        return raw.bindMemory(to: UInt64.self, capacity: blocks * perBlock)
    }

    /// How many keys apart a leaf of `keyCount` keys keeps its fences.
    @inline(__always)
    static func step(forKeys keyCount: Int) -> Int {
        (keyCount + perBlock - 1) / perBlock
    }

    /// The fences in block `block`; valid until the next `take`.
    @inline(__always)
    func block(_ block: Int) -> UnsafePointer<UInt64> {
        UnsafePointer(blocks + block * Self.perBlock)
    }

    /// Writes the fences of `keys`, a leaf's keys, into a block, and returns the block's index.
    func take(_ keys: UnsafeBufferPointer<UInt64>) -> Int {
        let index: Int
        if let free = freeBlocks.popLast() {
            index = free
        } else {
            index = handedOut
            handedOut += 1
            if index >= capacity { grow(toHold: index) }
        }
        let block = blocks + index * Self.perBlock
        let step = Self.step(forKeys: keys.count)
        var fence = 0
        for position in stride(from: 0, to: keys.count, by: step) {
            block[fence] = keys[position]
            fence += 1
        }
        return index
    }

    /// Takes back block `block`, whose leaf left the cache.
    func giveBack(_ block: Int) {
        freeBlocks.append(block)
    }

    private func grow(toHold index: Int) {
        var grown = capacity
        while grown <= index { grown *= 2 }
        let old = blocks
        blocks = Self.allocate(blocks: grown)
        blocks.update(from: old, count: capacity * Self.perBlock)
        old.deallocate()
        capacity = grown
    }

    /// The index of the first of `keys` not less than `key`, found through the leaf's fences
    /// `fences` (see `take`). `onRange` learns the first index the answer can be before the
    /// keys are read, so that the caller can start loading the value there.
    @inline(__always)
    static func firstIndex(
        notLessThan key: UInt64, in keys: UnsafeBufferPointer<UInt64>, fences: UnsafePointer<UInt64>, onRange: (Int) -> Void
    ) -> Int {
        let step = step(forKeys: keys.count)
        let fenceCount = (keys.count + step - 1) / step
        let raw = UnsafeRawPointer(fences)
        var line = 0
        while line < fenceCount * MemoryLayout<UInt64>.stride {
            asyncrealm_prefetch(raw + line)
            line += 64
        }
        // The first fence not less than `key`: the answer is after the fence before it, and
        // no later than this one.
        let fence = KeySearch.halving(notLessThan: key, in: UnsafeBufferPointer(start: fences, count: fenceCount), from: 0, to: fenceCount)
        if fence == 0 { return 0 }
        // keys[(fence - 1) * step] < key <= keys[fence * step] (or past the last key).
        let first = (fence - 1) * step + 1
        onRange(first)
        return KeySearch.halving(notLessThan: key, in: keys, from: first, to: min(fence * step, keys.count))
    }
}
