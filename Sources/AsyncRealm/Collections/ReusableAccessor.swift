/// The accessor an iteration made last, kept so that the next row's accessor can be the same
/// object: a scan then makes and frees no accessor per object (see `Results.Iterator`).
///
/// It may be reused only when nothing but this holds it, strongly, weakly or unowned: then
/// nobody can tell that it moved to another row.
struct ReusableAccessor {
    private var object: Object?

    /// The kept accessor if nothing else holds it; nil (and it is let go of) otherwise.
    @inline(__always)
    mutating func available() -> Object? {
        guard object != nil else { return nil }
        guard isKnownUniquelyReferenced(&object!),
              Unmanaged.passUnretained(object.unsafelyUnwrapped)._withUnsafeGuaranteedRef({
                  _getWeakRetainCount($0) == 1 && _getUnownedRetainCount($0) == 1
              }) else {
            object = nil
            return nil
        }
        return object.unsafelyUnwrapped
    }

    /// Keeps `accessor`, the one just handed out, for the next row.
    mutating func keep(_ accessor: Object) {
        object = accessor
    }

    /// Lets go of the kept accessor.
    mutating func forget() {
        object = nil
    }
}
