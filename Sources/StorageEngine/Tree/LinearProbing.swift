/// What the cache's open-addressing tables (`OffsetTable`, `AttachmentTable`) share: removing
/// an entry without leaving a tombstone.
enum LinearProbing {
    /// Closes the hole left at `hole` in a table of `mask + 1` entries by shifting back each
    /// following entry of its run that may move into it: one whose home is not between the
    /// hole and where it sits (cyclically). `home` gives the home of the entry at an index, nil
    /// for an empty one, and `move` moves an entry from one index to another. Returns where the
    /// hole ends up, which the caller marks empty.
    @inline(__always)
    static func closeHole(at hole: Int, mask: Int, home: (_ index: Int) -> Int?, move: (_ from: Int, _ to: Int) -> Void) -> Int {
        var hole = hole
        var next = hole
        while true {
            next = (next + 1) & mask
            guard let home = home(next) else { return hole }
            let distanceFromHome = (next - home) & mask
            let distanceFromHole = (next - hole) & mask
            if distanceFromHome >= distanceFromHole {
                move(next, hole)
                hole = next
            }
        }
    }
}
