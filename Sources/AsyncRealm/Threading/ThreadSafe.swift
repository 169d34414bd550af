import StorageEngine

/// A property that holds a live object or collection and can be read from any thread, task or
/// actor, as RealmSwift's `@ThreadSafe`:
///
///     @ThreadSafe var dog = realm.objects(Dog.self).first
///     Task.detached {
///         print(dog?.name ?? "deleted")     // read through a realm of the detached task
///     }
///
/// It keeps what the value is, not the value: each read opens a realm on the same file where the
/// reader runs (confined to its task or thread) and reads the value there, at the newest
/// version; nil once the object is deleted. Setting it from anywhere replaces what it holds.
@propertyWrapper
public final class ThreadSafe<Value: ThreadConfined>: @unchecked Sendable {
    // @unchecked: the only state is `held`, behind its lock, and holds only Sendable values.
    private let held = Locked<(description: _ConfinedDescription, configuration: Realm.Configuration)?>(nil)

    /// Holds `wrappedValue`, which must be managed by a live realm (or nil).
    ///
    /// - Parameter wrappedValue: A managed object or collection of a live realm, or nil.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// The value, read through a realm confined to the reader's task or thread; nil if none
    /// was set or the object was deleted since.
    public var wrappedValue: Value? {
        get {
            guard let (description, configuration) = held.withLock({ $0 }) else { return nil }
            return Value._resolve(description, in: Realm.live(configuration: configuration, isolation: nil))
        }
        set {
            guard let newValue else { return held.withLock { $0 = nil } }
            guard let realm = newValue.realm else {
                stop("@ThreadSafe holds managed values; add the object to a realm first, or keep an unmanaged one in a plain property")
            }
            require(!realm.isFrozen, "@ThreadSafe holds live values; a frozen one can be passed as it is with Frozen")
            realm.checkThread()
            let description = newValue._confinedDescription
            held.withLock { $0 = (description, realm.configuration) }
        }
    }
}
