/// A frozen object or collection that any number of tasks and actors can read at once.
///
///     let dogs = Frozen(realm.objects(Dog.self))          // freezes the current version
///     await withTaskGroup(of: Int.self) { group in
///         for _ in 0..<8 { group.addTask { dogs.value.count } }
///     }
///
/// `Frozen` is `Sendable`: it holds the pinned version and a description of the value, not the
/// value. `value` gives the caller a handle of its own on that version (frozen, so it never
/// changes and is never confined), which is what lets tasks read in parallel without locks:
/// the per-handle caches are never shared. The version stays readable while a `Frozen` or a
/// value read from it lives.
public struct Frozen<Value: ThreadConfined>: Sendable {
    private let state: FrozenRealmState
    private let description: _ConfinedDescription

    /// Freezes `value` (a frozen value is taken as it is).
    ///
    /// - Important: `value` must be managed, and not deleted.
    ///
    /// - Parameter value: A managed object or collection, live or frozen.
    public init(_ value: Value) {
        let frozen = value.freeze()
        guard let realm = frozen.realm else { stop("only managed objects and collections can be frozen") }
        state = realm.frozenState()
        description = frozen._confinedDescription
    }

    /// The version the value was frozen at.
    var version: UInt64 { state.snapshot.version }

    /// The frozen value, read through a frozen realm of the caller's own.
    public var value: Value {
        guard let value = Value._resolve(description, in: state.makeRealm()) else {
            stop("a frozen value always exists at its version")
        }
        return value
    }

    /// The live equivalent in a realm confined to the caller's isolation, at the newest
    /// version; nil if it was deleted since.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: The live value, or nil if the object was deleted.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Value? {
        Value._resolve(description, in: Realm.live(configuration: state.configuration, isolation: isolation))
    }
}
