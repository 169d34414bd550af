/// The accessor the last lookup by primary key returned, kept by its class info so that the
/// next lookup can return the same object once the caller has let go of it (see
/// `Realm.object(ofType:forPrimaryKey:)`).
///
/// A lookup in a loop whose objects are read and dropped (`object(...)?.name`) made and freed
/// an object per call: its allocation, its initialiser, a count on its realm and on its row's
/// buffer, and on its release the same counts given back and the memory freed. Returning the
/// kept object instead counts one reference (the caller's) and writes its key and row.
///
/// The rule is `Results.Iterator`'s (`ReusableAccessor`): an object is reused only when
/// nothing but this holds it, strongly, weakly or unowned, so nobody can tell it moved to
/// another row; and only for classes whose accessors hold nothing of a row but the row
/// (`ClassInfo.reusesAccessors(of:)`).
///
/// A caller that keeps what it looks up gains nothing from this, and would pay a count to keep
/// each object and another to let it go. After `maximumMisses` lookups in a row whose kept
/// object was still held, only one lookup in `retryInterval` keeps its object, until one is
/// found let go of again.
struct KeptLookupAccessor {
    private var kept = ReusableAccessor()
    /// Lookups in a row that found the kept accessor still held by someone else.
    private var misses = 0
    /// Accessors offered to `keep(_:)`, to pick the ones kept while `misses` is high.
    private var offered = 0
    static let maximumMisses = 8
    /// A power of two.
    static let retryInterval = 64

    /// The kept accessor if nothing else holds it and it belongs to `realm`; nil otherwise
    /// (and an accessor someone else holds is let go of).
    @inline(__always)
    mutating func available(in realm: Realm) -> Object? {
        guard kept.object != nil else { return nil }
        guard let object = kept.available() else {
            misses &+= 1
            return nil
        }
        guard object.__managedRealm?.toOpaque() == Unmanaged.passUnretained(realm).toOpaque() else {
            kept.forget()
            return nil
        }
        misses = 0
        return object
    }

    /// Keeps `object`, just made by a lookup of a class that reuses its accessors, for the next
    /// lookup, unless the last lookups' callers kept theirs.
    @inline(__always)
    mutating func keep(_ object: Object) {
        offered &+= 1
        guard misses < Self.maximumMisses || offered & (Self.retryInterval - 1) == 0 else { return }
        kept.keep(object)
    }

    /// Lets go of the kept accessor.
    mutating func forget() {
        kept.forget()
    }

    /// The kept accessor, for tests.
    var object: Object? { kept.object }
}
