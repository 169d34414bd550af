import CSwiftRuntime

/// The accessor an iteration made last, kept so that the next row's accessor can be the same
/// object: a scan then makes and frees no accessor per object (see `Results.Iterator`).
///
/// It may be reused only when nothing but this holds it, strongly, weakly or unowned: then
/// nobody can tell that it moved to another row.
@usableFromInline
struct ReusableAccessor {
    @usableFromInline var object: Object?
    /// `heldOnceWord`, read once (every read of a global goes through `swift_once`).
    @usableFromInline let heldOnce = Self.heldOnceWord

    /// The kept accessor if its reference-count word says at once that nothing else holds
    /// it: `available()`'s first test, alone, for the step of a scan inlined into the caller's
    /// loop (`Results.Iterator.next()`). Nil when that test cannot tell; `available()` decides.
    @inlinable @inline(__always)
    func availableAtOnce() -> Object? {
        guard object != nil,
              asyncrealm_reference_count_word(Unmanaged.passUnretained(object.unsafelyUnwrapped).toOpaque()) == heldOnce else { return nil }
        return object.unsafelyUnwrapped
    }

    /// The kept accessor if nothing else holds it; nil (and it is let go of) otherwise.
    @inline(__always)
    mutating func available() -> Object? {
        guard object != nil else { return nil }
        let word = asyncrealm_reference_count_word(Unmanaged.passUnretained(object.unsafelyUnwrapped).toOpaque())
        if word == heldOnce { return object.unsafelyUnwrapped }
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

    /// The reference-count word (`asyncrealm_reference_count_word`) of an object held by one
    /// strong reference and no weak or unowned one, if the runtime's words turn out to work as
    /// this expects; `UInt.max` (no object's word) if not, and every check asks the runtime.
    ///
    /// Asking the runtime takes three calls (the strong, weak and unowned counts), a tenth of
    /// the cost of iterating; comparing a word takes one load. The word holds the counts
    /// inline until an object gets a weak reference, and from then on points to a side table
    /// for good, so a word equal to a fresh object's says: one strong reference and nothing
    /// else. That is checked here once, on objects of a class of this module, before the
    /// word is trusted.
    static let heldOnceWord: UInt = calibratedHeldOnceWord()

    /// `heldOnceWord`, worked out through the runtime's own calls on a new object, so that the
    /// optimiser cannot drop the references it makes to see what they do to the word.
    private static func calibratedHeldOnceWord() -> UInt {
        final class Probe {}
        let object = Unmanaged.passRetained(Probe()).toOpaque()
        defer { swift_release(object) }
        let word = { asyncrealm_reference_count_word(object) }
        let once = word()
        guard swift_retainCount(object) == 1, swift_unownedRetainCount(object) == 1, swift_weakRetainCount(object) == 1 else { return .max }
        // Another strong reference, an unowned one and a weak one each change the word, and
        // so does the side table the weak one leaves when it goes.
        _ = swift_retain(object)
        let strongCount = swift_retainCount(object)
        let twice = word()
        swift_release(object)
        _ = swift_unownedRetain(object)
        let withUnowned = word()
        swift_unownedRelease(object)
        guard word() == once else { return .max }
        var weakReference: (UInt, UInt) = (0, 0)
        let (withWeak, afterWeak) = withUnsafeMutableBytes(of: &weakReference) { reference in
            _ = swift_weakInit(reference.baseAddress!, object)
            let withWeak = word()
            swift_weakDestroy(reference.baseAddress!)
            return (withWeak, word())
        }
        guard strongCount == 2, ![twice, withUnowned, withWeak, afterWeak].contains(once) else { return .max }
        return once
    }
}
