import Synchronization

/// Ends a change stream: `invalidate()` finishes it (a consumer waiting for the next element
/// gets nil at once) and releases the version it holds. Pass it to `write(withoutNotifying:)`
/// to keep a write's changes from the stream.
///
/// `Sendable`: any task may end a stream another task consumes.
public final class NotificationToken: Sendable {
    private let invalidated = Atomic<Bool>(false)
    private let signal: VersionSignal

    init(signal: VersionSignal) {
        self.signal = signal
    }

    /// Ends the stream. Calling it again does nothing.
    public func invalidate() {
        guard !invalidated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signal.wake()
    }

    /// Whether `invalidate()` was called (or the stream's realm was invalidated).
    public var isInvalidated: Bool { invalidated.load(ordering: .acquiring) }
}
