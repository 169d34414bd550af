import Glibc

/// Where a live `Realm` may be used: the thread that opened it, the actor it was opened for,
/// or the non-isolated task that opened it. Frozen realms are immutable and not confined.
enum Confinement {
    case thread(pthread_t)
    case actor(any Actor)
    case task(Int)
    case frozen

    /// The confinement of code running now, with no actor: the current task if there is one,
    /// else the current thread.
    static var currentTaskOrThread: Confinement {
        if let task = currentTaskIdentity { return .task(task) }
        return .thread(pthread_self())
    }

    static var currentTaskIdentity: Int? {
        withUnsafeCurrentTask { $0?.hashValue }
    }

    /// Stops unless the caller runs where this confinement allows.
    func check() {
        switch self {
        case .thread(let owner):
            require(pthread_equal(owner, pthread_self()) != 0,
                         "this Realm was opened on another thread; open a Realm on each thread that uses one, or pass objects with ThreadSafeReference or freeze()")
        case .actor(let actor):
            require(ExecutorIdentity(actor.unownedExecutor).isCurrent,
                    "this Realm is confined to the actor \(type(of: actor)) that opened it; use it there, open a Realm in this context (try await Realm.open()), or pass objects with ThreadSafeReference or freeze()")
        case .task(let owner):
            require(Confinement.currentTaskIdentity == owner,
                         "this Realm was opened in another task; open a Realm in each task that uses one, or pass objects with ThreadSafeReference or freeze()")
        case .frozen:
            break
        }
    }

    var isThread: Bool {
        if case .thread = self { true } else { false }
    }
}
