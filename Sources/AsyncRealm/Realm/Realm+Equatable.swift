import Glibc

/// Realms compare as RealmSwift's do. RealmSwift hands out one cached handle per file and
/// thread, so two `Realm()` calls on a thread give equal realms; here each call opens a handle
/// of its own, and handles are equal when they stand for the same thing: live handles on the
/// same file confined to the same thread, actor or task, or frozen handles on the same version
/// of the same file.
extension Realm: Equatable {
    /// Whether `lhs` and `rhs` are the same handle, live handles on one file confined to the
    /// same thread, actor or task, or frozen handles on one version of one file.
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        if lhs === rhs { return true }
        guard lhs.coordinator === rhs.coordinator else { return false }
        switch (lhs.confinement, rhs.confinement) {
        case (.thread(let left), .thread(let right)): return pthread_equal(left, right) != 0
        case (.actor(let left), .actor(let right)): return left === right
        case (.task(let left), .task(let right)): return left == right
        case (.frozen, .frozen): return lhs.frozenVersion == rhs.frozenVersion
        default: return false
        }
    }

    /// The version a frozen realm reads.
    private var frozenVersion: UInt64? { try? snapshot().version }
}
