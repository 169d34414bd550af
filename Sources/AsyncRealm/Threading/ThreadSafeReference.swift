import StorageEngine

/// A reference to a live object or collection that can be passed to another actor or task and
/// resolved there, once, by `realm.resolve(_:)`:
///
///     let reference = ThreadSafeReference(to: dog)
///     Task { @MainActor in
///         let realm = try await Realm.open()
///         guard let dog = realm.resolve(reference) else { return }   // deleted meanwhile
///     }
///
/// It keeps the version it was made at readable until it is resolved or released, and
/// resolves at a version at least as new.
public final class ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    private let description: _ConfinedDescription
    private let configuration: Realm.Configuration
    /// Whether the reference was resolved, and the version it was made at, pinned until then.
    private let state: Locked<(resolved: Bool, made: Snapshot?)>

    /// A reference to `threadConfined`, which must be managed by a live realm.
    ///
    /// - Parameter threadConfined: A managed object or collection of a live realm.
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else {
            stop("an unmanaged object is not confined to a realm; pass it as it is (or add it to a realm first)")
        }
        realm.checkThread()
        require(!realm.isFrozen, "a frozen value can be passed as it is with Frozen; ThreadSafeReference is for live values")
        description = threadConfined._confinedDescription
        configuration = realm.configuration
        state = Locked((false, try? realm.snapshot()))
    }

    /// Marks the reference resolved and returns the version it was made at (releasing it);
    /// stops if it was resolved before.
    fileprivate func take() -> Snapshot? {
        let (wasResolved, made) = state.withLock { state in
            defer { state = (true, nil) }
            return state
        }
        require(!wasResolved, "a ThreadSafeReference can be resolved only once; make a new reference for each resolve")
        return made
    }

    fileprivate var confinedDescription: _ConfinedDescription { description }

    /// Whether the reference was resolved already, so it cannot be resolved again.
    public var isInvalidated: Bool { state.withLock(\.resolved) }
}

extension Realm {
    /// The object or collection `reference` refers to, read by this realm at a version at least
    /// as new as the one the reference was made at (refreshing if needed); nil if the object
    /// was deleted.
    ///
    /// A realm with `autorefresh` on (the default) first advances to the newest version, as a
    /// RealmSwift realm on a run loop would have by then: an object deleted by any commit
    /// before the call resolves to nil.
    ///
    /// - Important: Resolve each reference once, outside a write transaction, in a realm of
    ///   the same file.
    ///
    /// - Parameter reference: A reference made on a realm of the same file.
    /// - Returns: The value read by this realm; nil if the object was deleted.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        checkThread()
        require(!isWriting, "a ThreadSafeReference cannot be resolved inside a write transaction; resolve it before beginWrite()")
        require(!isFrozen, "a ThreadSafeReference resolves in a live realm; this one is frozen")
        let made = reference.take()
        if let made {
            require(made.isVersion(of: database), "a ThreadSafeReference resolves in a realm of the file it was made in")
            if autorefresh || (try? snapshot().version) ?? 0 < made.version { refresh() }
        }
        return Confined._resolve(reference.confinedDescription, in: self)
    }
}
