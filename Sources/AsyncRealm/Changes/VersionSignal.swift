import StorageEngine

/// Tells waiting change streams that a newer version of the file exists.
///
/// Every commit in this process publishes its version here as soon as it is durable; the
/// coordinator's poller publishes the versions other processes commit. A waiter is resumed by
/// any publication or `wake()` and checks for itself whether what it waits for happened, so
/// ending a stream (token invalidated, task cancelled) is a wake-up, not a special case.
final class VersionSignal: Sendable {
    private struct State {
        var newest: UInt64
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters woken before they registered (a wake racing a cancellation).
        var preWoken: Set<Int> = []
        /// Resumed when the first waiter arrives: the poller sleeps while no one listens.
        var listenerArrived: CheckedContinuation<Void, Never>?

        mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
    }

    private let state: Locked<State>

    init(newest: UInt64) {
        state = Locked(State(newest: newest))
    }

    var newest: UInt64 { state.withLock { $0.newest } }

    var hasWaiters: Bool { state.withLock { !$0.waiters.isEmpty } }

    /// Records that `version` is committed and wakes every waiter if it is new.
    func publish(_ version: UInt64) {
        // Every commit publishes, mostly with no one waiting: the waiters are taken apart,
        // in `wake()`, whose array of continuations costs a lookup of its type's metadata.
        // A waiter arriving between the two sees the new version and does not wait.
        let anyWaiting = state.withLock { state -> Bool in
            guard version > state.newest else { return false }
            state.newest = version
            return !state.waiters.isEmpty
        }
        if anyWaiting { wake() }
    }

    /// Wakes every waiter so that each checks again whether to go on waiting.
    @inline(never)
    func wake() {
        let woken = state.withLock { $0.takeWaiters() }
        for waiter in woken { waiter.resume() }
    }

    /// Suspends until a version newer than `version` is published, `wake()` is called, or the
    /// task is cancelled. Returns at once if one is already known.
    func wait(forVersionAfter version: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, listener) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    if state.newest > version || state.preWoken.remove(id) != nil { return (true, nil) }
                    state.waiters[id] = continuation
                    defer { state.listenerArrived = nil }
                    return (false, state.listenerArrived)
                }
                listener?.resume()
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.preWoken.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
        // A cancellation that came after the waiter was resumed another way left its mark.
        state.withLock { _ = $0.preWoken.remove(id) }
    }

    /// Suspends until some stream waits (for the poller of other processes' commits).
    func waitForListener() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if !state.waiters.isEmpty { return true }
                state.listenerArrived?.resume()
                state.listenerArrived = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Resumes a poller waiting for a listener, so that it can stop.
    func releasePoller() {
        let listener = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.listenerArrived = nil }
            return state.listenerArrived
        }
        listener?.resume()
    }
}
