import CSwiftRuntime
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

    /// The current task's address, nil outside a task: what its `hashValue` (which this was)
    /// hashed. Read from the runtime (`swift_task_getCurrent`): `withUnsafeCurrentTask`,
    /// unspecialised, counted a reference to the task and hashed it on every check, six per
    /// scanned object, and a scan reading every property took 417 ns an object on a realm
    /// confined to a task, against 91 on a thread's.
    static var currentTaskIdentity: Int? {
        swift_task_getCurrent().map { Int(bitPattern: $0) }
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
