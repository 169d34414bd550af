import Foundation
import StorageEngine

/// The threads blocked in, or holding, a synchronous write transaction, by file: what lets
/// `beginWrite()` tell a write that can never start from one that has to wait.
///
/// The synchronous `beginWrite()` waits for the file's write lock, as Realm's does. If the
/// lock is held by another handle's write transaction begun on this same thread
/// (`try first.write { try second.write { } }`), nothing can release it while this thread
/// waits: the wait would never end. Each synchronous write records its thread and file here
/// until it ends, and a second one on the same thread and file stops with a message instead.
/// (Writes begun with `asyncWrite` suspend rather than block, and are not recorded.)
enum SynchronousWriters {
    private struct Holder: Hashable {
        let thread: pthread_t
        let file: ObjectIdentifier
    }

    /// Behind `Locked` (a pthread mutex), not `Synchronization.Mutex`, whose futex
    /// ThreadSanitizer does not see: two threads holding at once were reported as a race.
    private static let holders = Locked<Set<Holder>>([])

    /// Stops if this thread already holds a synchronous write transaction on `file`.
    static func checkNotHolding(_ file: ObjectIdentifier) {
        let holding = holders.withLock { $0.contains(Holder(thread: pthread_self(), file: file)) }
        require(!holding, "another Realm handle on this file is already in a write transaction on this thread, so this write would wait for it for ever; write through that handle, or begin this write after the other one ends")
    }

    /// Records that this thread holds a synchronous write transaction on `file`; returns the
    /// thread, for `release`.
    static func hold(_ file: ObjectIdentifier) -> pthread_t {
        let thread = pthread_self()
        holders.withLock { _ = $0.insert(Holder(thread: thread, file: file)) }
        return thread
    }

    /// Ends the record `hold` made (on whichever thread the transaction ends).
    static func release(_ file: ObjectIdentifier, heldBy thread: pthread_t) {
        holders.withLock { _ = $0.remove(Holder(thread: thread, file: file)) }
    }
}
