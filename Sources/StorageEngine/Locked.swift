import Glibc

/// A value behind a `pthread_mutex_t`: `withLock` is the only way to it.
///
/// The project's lock, instead of `Synchronization.Mutex`: on Linux `Mutex` waits on a futex
/// that ThreadSanitizer does not see, so every access it protects is reported as a race, and
/// `.ci/run` runs the concurrency tests under ThreadSanitizer. The pthread functions are
/// intercepted by the sanitizer, which then knows what the lock orders. Uncontended, locking
/// costs the same (an atomic exchange each way).
///
/// `@unchecked Sendable` is safe: the value is reached only inside `withLock`, which holds the
/// mutex for the whole closure, so no two threads touch it at once; values stored are
/// `Sendable`, so what a closure copies out is safe to use anywhere.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the mutex already makes every access exclusive, so the run-time check that
    /// would otherwise surround each `withLock` only costs time.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
