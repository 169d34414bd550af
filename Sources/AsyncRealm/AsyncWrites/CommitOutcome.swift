import StorageEngine

/// Whether a commit that joined the process's commit group became durable: reported once, by
/// whichever writer ends the group, and awaited by the writer that made the commit.
final class CommitOutcome: Sendable {
    private struct State {
        var outcome: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private let state = Locked(State())

    /// Records the outcome (nil: durable) and resumes the waiter, if it waits already.
    func report(_ error: (any Error)?) {
        let outcome: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome)
    }

    /// Suspends until the outcome is reported. Not cancellable: the commit happened, and
    /// only its durability is in question.
    func value() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Void, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
