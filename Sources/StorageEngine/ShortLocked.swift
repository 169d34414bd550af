import Glibc
import Synchronization

/// A value behind a lock for critical sections a few hundred nanoseconds long, taken on every
/// read: `withLock` is the only way to it.
///
/// `Locked` takes a `pthread_mutex_t`: two calls into the C library and two atomic
/// read-modify-writes per section, which were a ninth of a primary key lookup (the page
/// cache's descent). This lock is one compare-and-swap to take and one plain store to give
/// back. A thread that finds it taken tries again a few times, then yields the processor
/// between tries, so that a holder the scheduler preempted gets to finish; it never sleeps in
/// the kernel, so it is only for sections that do no I/O and wait on nothing.
///
/// ThreadSanitizer sees what the lock orders: the compare-and-swap that takes it is an
/// acquire, the store that gives it back a release, both compiled into this module (unlike
/// `Synchronization.Mutex`, whose waiting is in a library the sanitizer does not instrument).
///
/// `@unchecked Sendable` is safe for the reasons `Locked`'s is: the value is reached only
/// inside `withLock`, which holds the lock for the whole closure, and values stored are
/// `Sendable`.
package final class ShortLocked<Value: Sendable>: @unchecked Sendable {
    private let isTaken = Atomic<Bool>(false)
    /// Unchecked: the lock already makes every access exclusive.
    @exclusivity(unchecked) private var value: Value

    /// Tries before a waiting thread starts yielding between tries.
    private static var triesBeforeYielding: Int { 64 }

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock. `body` must not take this lock again.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        if !isTaken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            waitForLock()
        }
        defer { isTaken.store(false, ordering: .releasing) }
        return try body(&value)
    }

    /// Takes the lock another thread holds, once it gives it back.
    @inline(never)
    private func waitForLock() {
        var tries = 0
        while true {
            // Read before trying to write, so that waiters do not take the line from the holder.
            if !isTaken.load(ordering: .relaxed),
               isTaken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                return
            }
            tries += 1
            if tries >= Self.triesBeforeYielding { sched_yield() }
        }
    }
}
