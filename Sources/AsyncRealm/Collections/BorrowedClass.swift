/// A realm and one of its class infos, held without counting references, for a loop that
/// something else keeps them alive through (`Results.Iterator`, whose results hold both):
/// retaining and releasing them per object would be four atomic operations each.
@usableFromInline
struct BorrowedClass {
    @usableFromInline let realm: Unmanaged<Realm>
    @usableFromInline let info: Unmanaged<ClassInfo>

    /// Borrows `realm` and `info`, which the caller keeps alive for as long as this is used.
    init(realm: Realm, info: ClassInfo) {
        self.realm = .passUnretained(realm)
        self.info = .passUnretained(info)
    }

    /// Calls `body` with the realm and the class info, counting no reference to either.
    @inlinable @inline(__always)
    func use<Result>(_ body: (Realm, ClassInfo) throws -> Result) rethrows -> Result {
        try realm._withUnsafeGuaranteedRef { realm in
            try info._withUnsafeGuaranteedRef { info in try body(realm, info) }
        }
    }
}
