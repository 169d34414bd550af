import CPrefetch

/// What a lookup reads of one cached node, in one cache line: its reference, its key count, its
/// slot and where its arrays keep their elements. The cache's offset table holds the summaries
/// (`OffsetTable`): the entry that finds a node is its summary.
///
/// A lookup through the page cache (`PageCache.locate(_:from:copyingInto:noting:)`) used to read the
/// node itself, an enum of arrays: its slot, then the header of each array it searched (the
/// count is kept there, a line away from the elements), then a reference count on the bytes it
/// handed out. In a node not read lately each of those lines is a cache miss. With a summary
/// the lookup reads one line per node besides the elements it compares.
///
/// The pointers stay valid while the cache holds the node: a cached node is never changed (a
/// writer changing a copy of it gets arrays of its own, the cache's still being referenced),
/// and the summary is removed from the table when the node leaves the cache.
struct NodeSummary {
    /// Zero for an empty entry of the table.
    var offset: UInt64 = 0
    var checksum: UInt64 = 0
    var length: UInt32 = 0
    var keyCount: Int32 = 0
    var keys: UnsafePointer<UInt64>?
    /// A leaf's value ends (`UInt32`, see `Leaf.ends`), or a branch's children (`Child`).
    var entries: UnsafeRawPointer?
    /// A leaf's value bytes.
    var bytes: UnsafeRawPointer?
    var isLeaf = false
    /// The CLOCK reference bit (see `PageCache`).
    var referenced = false
    /// Whether a leaf's keys are the run `runStart, runStart + 1, ...` (see `runStart`).
    var isRun = false
    /// To a whole line: a summary that straddled two would cost two misses.
    private var padding8: UInt8 = 0
    /// The cache slot holding the node.
    var slot: Int32 = 0
    /// The length of a leaf's value bytes, to guess where a value sits.
    var byteCount: UInt32 = 0
    /// A leaf's first key, when its keys are a run with no gap, below 2^32: a lookup then
    /// knows a key's position without reading the keys. Rows are keyed in the order they were
    /// added, so the leaves of a table nobody deleted from are runs. For a leaf that
    /// `usesFences`, which is no run, its block's index (see `fenceBlock`).
    var runStart: UInt32 = 0

    init() {}

    init(_ node: Node, at ref: PageRef, slot: Int, referenced: Bool) {
        offset = ref.offset
        self.slot = Int32(slot)
        checksum = ref.checksum
        length = ref.length
        self.referenced = referenced
        switch node {
        case .leaf(let leaf):
            isLeaf = true
            keyCount = Int32(leaf.keys.count)
            keys = leaf.keys.withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            entries = leaf.ends.withUnsafeBytes { $0.baseAddress }
            bytes = leaf.bytes.withUnsafeBytes { $0.baseAddress }
            byteCount = UInt32(leaf.bytes.count)
            if let first = leaf.keys.first, let last = leaf.keys.last, last <= UInt64(UInt32.max),
               last - first == UInt64(leaf.keys.count - 1) {
                isRun = true
                runStart = UInt32(first)
            }
        case .branch(let branch):
            require(branch.children.count == branch.keys.count + 1, "a branch has one child more than it has separators")
            keyCount = Int32(branch.keys.count)
            keys = branch.keys.withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            entries = branch.children.withUnsafeBytes { $0.baseAddress }
        }
    }

    /// Sets the reference bit, writing only when it is clear: a line written by one core is
    /// taken from every other core's cache, and tasks reading the same pages on several cores
    /// would otherwise pass the summaries of those pages back and forth on every lookup.
    @inline(__always)
    mutating func markReferenced() {
        if !referenced { referenced = true }
    }

    /// Whether this summary is of the page `ref` refers to.
    @inline(__always)
    func describes(_ ref: PageRef) -> Bool {
        offset == ref.offset && checksum == ref.checksum && length == ref.length
    }

    @inline(__always)
    private var keyBuffer: UnsafeBufferPointer<UInt64> {
        UnsafeBufferPointer(start: keys, count: Int(keyCount))
    }

    /// A branch's child whose range holds `key`, and what the separators around it say of its
    /// keys; `span` is what this branch's parent said of its own.
    /// `prefetch` is given the offset of the child the guess points to, to start loading
    /// what the descent reads of it next.
    @inline(__always)
    func child(for key: UInt64, within span: KeySpan, prefetch: (UInt64) -> Void = { _ in }) -> (ref: PageRef, span: KeySpan) {
        let keys = keyBuffer
        let children = entries.unsafelyUnwrapped.assumingMemoryBound(to: Child.self)
        // The child at the guessed separator is usually the one: its reference, then its
        // summary, load while the separator's line does (see `KeySearch.firstIndex`).
        let position = KeySearch.childIndex(for: key, separators: keys, within: span) { guess in
            if case .stored(let guessed) = children[guess] { prefetch(guessed.offset) }
        }
        guard case .stored(let child) = children[position] else {
            stopProgram("a stored tree has only stored children")
        }
        return (child, KeySpan(child: position, of: keys, within: span))
    }

    /// Whether the cache keeps fences of this node's keys (see `LeafFences`): a leaf whose keys
    /// are not a run, with more than a few lines of them.
    @inline(__always)
    var usesFences: Bool {
        isLeaf && !isRun && Int(keyCount) > LeafFences.minimumKeys
    }

    /// The block of the cache's `LeafFences` holding this leaf's fences, if it `usesFences`:
    /// kept where a run keeps its first key, the line having no other room.
    @inline(__always)
    var fenceBlock: Int {
        get { Int(runStart) }
        set { runStart = UInt32(newValue) }
    }

    /// Where a leaf's value for `key` is in `bytes`, and whether it is an overflow reference;
    /// nil if the leaf does not hold `key`. The ends were checked to rise and stay inside the
    /// bytes when the leaf was decoded. `fences` are the leaf's fences, which a leaf that
    /// `usesFences` is searched through.
    @inline(__always)
    func value(for key: UInt64, within span: KeySpan, fences: UnsafePointer<UInt64>?) -> (range: Range<Int>, isOverflow: Bool)? {
        let keys = keyBuffer
        let ends = entries.unsafelyUnwrapped.assumingMemoryBound(to: UInt32.self)
        if isRun {
            // The key's position is its distance from the first: no key is read.
            let offset = key &- UInt64(runStart)
            guard offset < UInt64(keyCount) else { return nil }
            let position = Int(offset)
            prefetchValue(at: position)
            return NodeSummary.valueRange(at: position, ends: ends)
        }
        let position: Int
        if let fences {
            // The value's ends, and the bytes where values of average length would put it,
            // load while the keys' line does.
            position = LeafFences.firstIndex(notLessThan: key, in: keys, fences: fences) { first in
                asyncrealm_prefetch(ends + max(first - 1, 0))
                prefetchValue(at: first)
            }
        } else {
            // The guessed key is usually the one: its value's ends, and the bytes where values
            // of average length would put it, load while the key's line does.
            position = KeySearch.firstIndex(notLessThan: key, in: keys, from: 0, within: span) { guess in
                asyncrealm_prefetch(ends + max(guess - 1, 0))
                prefetchValue(at: guess)
            }
        }
        guard position < keys.count, keys[position] == key else { return nil }
        return NodeSummary.valueRange(at: position, ends: ends)
    }

    /// Starts loading the bytes of value `position` (see `LeafHint.prefetchValue`).
    @inline(__always)
    private func prefetchValue(at position: Int) {
        LeafHint.prefetchValue(at: position, bytes: bytes, byteCount: Int(byteCount), keyCount: Int(keyCount))
    }

    /// Where value `position` of a leaf whose value ends are `ends` is in its bytes, and
    /// whether it is an overflow reference.
    @inline(__always)
    static func valueRange(at position: Int, ends: UnsafePointer<UInt32>) -> (range: Range<Int>, isOverflow: Bool) {
        let end = ends[position]
        let start = position == 0 ? 0 : Int(ends[position - 1] & ~Leaf.overflowBit)
        return (start..<Int(end & ~Leaf.overflowBit), end & Leaf.overflowBit != 0)
    }
}
