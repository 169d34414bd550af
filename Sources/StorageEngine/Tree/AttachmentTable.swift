/// The objects `PageCache` keeps attached to nodes (`PageCache.attach(_:to:tag:cost:)`), by
/// node reference and tag: open addressing with linear probing, like `OffsetTable`, and the
/// attachments' CLOCK, whose hand walks the table's entries.
///
/// A scan by columns looks up one attachment per leaf. In a `Dictionary` each lookup hashed
/// its key with SipHash (a `Hasher` set up and finished every time) and searched twice, to
/// find the entry and then to set its reference bit: about a fifth of a count or a sum over a
/// whole table. Here a multiplicative hash picks an entry and the entry found is updated in
/// place. Deleting shifts the entries after it back, so no tombstones accumulate, and the table
/// stays at most half full.
///
/// A class, owning its entries' memory; `@unchecked Sendable` because the cache reaches it only
/// under its lock.
final class AttachmentTable: @unchecked Sendable {
    /// What an attached object is kept under: its node's reference and its tag.
    struct Key: Equatable {
        let offset: UInt64
        let checksum: UInt64
        let tag: Int
    }

    struct Entry {
        /// Nil for an empty entry.
        var key: Key?
        var object: (any AnyObject & Sendable)?
        var cost = 0
        /// The CLOCK reference bit, as a node's.
        var referenced = false
    }

    @exclusivity(unchecked) private var entries: UnsafeMutableBufferPointer<Entry>
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private(set) var count = 0
    /// Where the CLOCK hand is: an index into the entries.
    @exclusivity(unchecked) private var hand = 0

    init() {
        entries = Self.allocate(capacity: 16)
        shift = 64 - 4
    }

    deinit {
        entries.deinitialize()
        entries.deallocate()
    }

    private static func allocate(capacity: Int) -> UnsafeMutableBufferPointer<Entry> {
        let entries = UnsafeMutableBufferPointer<Entry>.allocate(capacity: capacity)
        entries.initialize(repeating: Entry())
        return entries
    }

    /// The number of entries, empty or not: what the CLOCK hand walks.
    var capacity: Int { entries.count }

    private var mask: Int { entries.count - 1 }

    @inline(__always)
    private func home(_ key: Key) -> Int {
        let mixed = (key.offset ^ UInt64(truncatingIfNeeded: key.tag) &* 0x517C_C1B7_2722_0A95) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> shift)
    }

    /// The index of the entry of `key`, or nil.
    @inline(__always)
    private func index(of key: Key) -> Int? {
        var index = home(key)
        while let found = entries[index].key {
            if found == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The object attached under `key`, its reference bit set; nil if there is none.
    @inline(__always)
    func use(_ key: Key) -> (any AnyObject & Sendable)? {
        guard let index = index(of: key) else { return nil }
        if !entries[index].referenced { entries[index].referenced = true }
        return entries[index].object
    }

    func contains(_ key: Key) -> Bool { index(of: key) != nil }

    /// Attaches `object` under `key`, which must not have one, referenced.
    func insert(_ object: any AnyObject & Sendable, cost: Int, under key: Key) {
        require(index(of: key) == nil, "an attachment is kept twice under one key")
        if (count + 1) * 2 > entries.count { grow() }
        place(Entry(key: key, object: object, cost: cost, referenced: true))
    }

    /// Puts `entry`, whose key the table does not hold, into the first empty entry from its
    /// home.
    private func place(_ entry: Entry) {
        var index = home(entry.key.unsafelyUnwrapped)
        while entries[index].key != nil { index = (index + 1) & mask }
        entries[index] = entry
        count += 1
    }

    /// One step of the CLOCK hand: an entry used since the hand last passed loses its
    /// reference bit, one that was not is removed, and its cost returned; nil otherwise.
    func stepClock() -> Int? {
        guard count > 0 else { return nil }
        if hand >= entries.count { hand = 0 }
        let index = hand
        guard entries[index].key != nil else {
            hand += 1
            return nil
        }
        if entries[index].referenced {
            entries[index].referenced = false
            hand += 1
            return nil
        }
        // The hand stays: the entry shifted into this place, if any, is looked at next.
        let cost = entries[index].cost
        remove(at: index)
        return cost
    }

    /// Removes the entry at `index`.
    private func remove(at index: Int) {
        count -= 1
        let entries = entries
        let hole = LinearProbing.closeHole(at: index, mask: mask) { index in
            entries[index].key.map(home)
        } move: { from, to in
            entries[to] = entries[from]
        }
        entries[hole] = Entry()
    }

    private func grow() {
        let old = entries
        entries = Self.allocate(capacity: old.count * 2)
        shift -= 1
        count = 0
        hand = 0
        for entry in old where entry.key != nil { place(entry) }
        old.deinitialize()
        old.deallocate()
    }
}
