import StorageEngine

/// The row key an `Int` primary key gives an object, so that `object(ofType:forPrimaryKey:)`
/// finds it with one lookup in the class's row tree instead of a lookup in the primary key's
/// index and then one in the row tree.
///
/// An object added with primary key `n` (0 ≤ n < 2^31) takes row key `n + 1` when that key is
/// at or a little past the next key the table would hand out, which is so for ids that count
/// up, the common case; any other object takes the next key as before. Keys still only grow,
/// so objects still come in the order they were added and no key is ever used twice (an
/// accessor or thread-safe reference of a deleted object never finds another in its row).
/// A lookup reads the row at the key its primary key gives and takes it only if that row's
/// primary key is the one asked for (the row may be another object's, which took that key as
/// the next one, or a migration may have changed the primary key); otherwise it asks the index,
/// which still holds every object.
///
/// The bounds keep the keys where an object's row key must stay: an owner's key is the high
/// half of its list elements' keys (`ListStore`), so it must stay below 2^32, and a jump forward
/// past keys never used is at most `largestGap`.
enum PrimaryKeyRowKey {
    /// Primary keys below this give a row key.
    static let limit: Int64 = 1 << 31
    /// The furthest past the next key a primary key's row key may be and still be taken.
    static let largestGap: UInt64 = 1 << 24

    /// The row key primary key `value` gives, if it gives one.
    @inline(__always)
    static func key(for value: RowValue) -> UInt64? {
        guard case .int(let number) = value else { return nil }
        return key(for: number)
    }

    /// The row key integer primary key `number` gives, if it gives one.
    @inline(__always)
    static func key(for number: Int64) -> UInt64? {
        guard number >= 0, number < limit else { return nil }
        return UInt64(number) + 1
    }

    /// The key an object with primary key `value` takes, when `next` is the next key free.
    static func newKey(for value: RowValue, next: UInt64) -> UInt64 {
        guard let key = key(for: value), key >= next, key - next <= largestGap else { return next }
        return key
    }
}
