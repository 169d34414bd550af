import Dispatch

/// Runs the blocking end of a commit group (a header write and an `fsync`) on a thread outside
/// Swift's cooperative pool, and lets the awaiting writer suspend meanwhile.
///
/// A sync takes hundreds of microseconds; done on a pool thread it would stop every other
/// writer of the process from even joining the queue when the pool has one free thread (a
/// two-core machine whose other thread is busy), and the next group would never form.
final class GroupSyncer: Sendable {
    static let shared = GroupSyncer()

    private let queue = DispatchQueue(label: "AsyncRealm.group-sync")

    /// Runs `work` on the syncing thread and returns when it is done.
    func run(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }
}
