import StorageEngine

/// The in-process queue of `asyncWrite`s on one file: writers take turns in arrival order and
/// wait by suspending, never by blocking a thread. The turn is handed from one writer straight
/// to the next, so a late arrival cannot overtake a waiting one.
final class WriteQueue: Sendable {
    private struct State {
        var isHeld = false
        var nextTicket = 0
        var waiting: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state = Locked(State())

    /// Suspends until it is the caller's turn.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting; it then holds no turn.
    func acquire() async throws {
        let ticket = state.withLock { state -> Int in
            state.nextTicket += 1
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, so that a cancellation either finds the waiter or is seen here.
                let outcome = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if !state.isHeld {
                        state.isHeld = true
                        return true
                    }
                    state.waiting.append((ticket, continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Hands the caller's turn to the next waiting writer and returns true; returns false,
    /// the caller keeping its turn, if no one waits.
    func handOff() -> Bool {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.waiting.isEmpty ? nil : state.waiting.removeFirst().continuation
        }
        next?.resume()
        return next != nil
    }

    /// Ends the caller's turn, handing it to the next waiting writer.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
