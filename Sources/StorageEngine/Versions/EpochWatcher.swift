import Dispatch

/// The timer that ends an epoch another process waits for.
///
/// `@unchecked Sendable`: the timer is only resumed once and cancelled, both thread-safe.
final class EpochWatcher: @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    /// How often the watcher looks: what another process opening the file may wait, plus a
    /// checkpoint.
    static let interval = DispatchTimeInterval.milliseconds(5)
    /// An epoch idle this long is checkpointed, so that the file on disk does not lag behind
    /// for long (a copy of it taken meanwhile misses what only the log holds).
    static let idleNanoseconds: UInt64 = 1_000_000_000

    init(timer: any DispatchSourceTimer) {
        self.timer = timer
    }

    func cancel() {
        timer.cancel()
    }
}
