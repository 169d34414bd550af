import StorageEngine

/// A stream of changes to something a realm holds: `realm.changes`, `results.changes`,
/// `list.changes`, `object.changes`, and their `changes(keyPaths:)` forms.
///
///     for await change in realm.objects(Dog.self).changes {
///         switch change {
///         case .initial(let dogs): show(dogs)
///         case .update(let dogs, let deletions, let insertions, let modifications): ...
///         }
///     }
///
/// Elements are computed when the consumer asks for the next one, on the consumer's actor,
/// advancing the consumer's realm to the newest version: commits made between two requests
/// arrive as one coalesced element, and a consumer that does not ask costs nothing but the
/// version it last saw. A commit that changes nothing the stream observes yields nothing.
///
/// The stream ends (yields nil) when `token` is invalidated, the consuming task is cancelled,
/// the realm is invalidated, or (for an object) the object is deleted. Iterate it once, from
/// where its realm may be used.
public struct ChangeStream<Element>: AsyncSequence {
    /// Ends the stream; pass it to `write(withoutNotifying:)` to keep a write from it.
    public let token: NotificationToken
    let core: StreamCore<Element>

    init(core: StreamCore<Element>) {
        self.core = core
        token = core.token
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(core: core)
    }

    /// Computes the stream's elements as `for await` asks for them.
    public struct Iterator: AsyncIteratorProtocol {
        let core: StreamCore<Element>

        /// The next element, computed on `actor`.
        ///
        /// - Parameter actor: The actor the consumer runs on.
        /// - Returns: The next element; nil once the stream has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await core.next(isolation: actor)
        }

        /// The next element, computed on the caller's actor (as `for await` does).
        ///
        /// - Returns: The next element; nil once the stream has ended.
        nonisolated(nonsending) public mutating func next() async -> Element? {
            await core.next(isolation: #isolation)
        }
    }
}

/// What one kind of stream observes, and how it turns a change of the realm into an element.
protocol ChangeObserver: AnyObject {
    associatedtype Element
    /// The first element, for the realm as it is now, which becomes the baseline; nil for a
    /// stream that only reports changes.
    func initial() -> Element?
    /// The element for `changes`, what happened from `old` (the baseline) to `new` (which the
    /// realm now reads), or nil if nothing observed changed; either way `new` becomes the
    /// baseline.
    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> Element?
    /// Makes the realm's current version the baseline without producing an element (a write
    /// made without notifying this stream).
    func rebase()
    /// Whether the stream ends after the element just produced.
    var isFinished: Bool { get }
    /// Whether the stream starts with an element describing the state (collections). Streams
    /// without one (objects, the realm) take their baseline when they are created, so that
    /// a change made before the first request is reported.
    var hasInitial: Bool { get }
}

/// The state of one stream, behind the type-erasing `ChangeStream`.
class StreamCore<Element> {
    let token: NotificationToken

    init(token: NotificationToken) {
        self.token = token
    }

    /// The next element, computed on the consumer's isolation (where the realm may be used).
    func next(isolation: isolated (any Actor)?) async -> Element? { nil }
}

/// Drives an observer: waits for new versions, advances the realm, and asks the observer for
/// the element, remembering the version it last described (the baseline, pinned meanwhile).
final class StreamDriver<Observer: ChangeObserver>: StreamCore<Observer.Element>, RealmStream {
    private let realm: Realm
    private var observer: Observer?
    private var baseline: Snapshot?
    private var started = false
    /// Elements computed before the consumer asked: what preceded a write made without
    /// notifying this stream.
    private var pending: [Observer.Element] = []

    init(realm: Realm, observer: Observer) {
        require(!realm.isFrozen, "a frozen realm never changes, so it has no change stream; observe the live value (thaw() gives it)")
        self.realm = realm
        self.observer = observer
        super.init(token: NotificationToken(signal: realm.coordinator.versions))
        realm.register(self)
        if !observer.hasInitial {
            started = true
            baseline = realm.streamSnapshot()
        }
    }

    override func next(isolation: isolated (any Actor)?) async -> Observer.Element? {
        while true {
            guard let observer, !token.isInvalidated, !Task.isCancelled else {
                end()
                return nil
            }
            realm.checkThread()
            if !pending.isEmpty { return pending.removeFirst() }
            guard started, let baseline else {
                started = true
                realm.advanceForStream()
                self.baseline = realm.streamSnapshot()
                if let first = observer.initial() { return first }
                continue
            }
            let advances = realm.advanceForStream()
            if let current = realm.streamSnapshot(), current.version > baseline.version {
                let element = describe(from: baseline, to: current, observer)
                self.baseline = current
                if let element {
                    if observer.isFinished { end() }
                    return element
                }
                continue
            }
            // Nothing new that this realm reads yet. A realm that advances by itself waits for
            // a newer version; one that does not (autorefresh off, a write open) waits for
            // one newer than the newest known, or for its own refresh, which wakes its streams.
            let versions = realm.coordinator.versions
            await versions.wait(forVersionAfter: advances ? baseline.version : max(baseline.version, versions.newest))
        }
    }

    private func describe(from old: Snapshot, to new: Snapshot, _ observer: Observer) -> Observer.Element? {
        guard let changes = try? realm.database.changes(from: old, to: new) else {
            // The changes cannot be read (an I/O error): start over from the new version.
            observer.rebase()
            return nil
        }
        return observer.update(changes, from: old, to: new)
    }

    /// A write that will not notify this stream is starting on the realm's current version:
    /// what happened between the baseline and it is computed now, kept for the consumer, and
    /// the baseline moves to it, so that `skip` can leave out exactly the write.
    func prepareToSkip() {
        guard started, let observer, let baseline, let current = realm.streamSnapshot(),
              current.version > baseline.version else { return }
        if let element = describe(from: baseline, to: current, observer) { pending.append(element) }
        self.baseline = current
    }

    /// A write from `base` to `new` was made without notifying this stream: if the stream had
    /// seen everything up to `base`, the write becomes part of its baseline unreported. (If it
    /// had not, and the write did not say so at its start, nothing is skipped: reporting a write
    /// is better than losing the changes before it.)
    func skip(from base: Snapshot, to new: Snapshot) {
        guard started, let observer, let baseline, baseline.version == base.version else { return }
        observer.rebase()
        self.baseline = new
    }

    /// Ends the stream: the observer and the baseline version are released.
    func end() {
        observer = nil
        baseline = nil
        pending.removeAll()
        token.invalidate()
    }
}

/// What a realm knows of the streams observing it.
protocol RealmStream: AnyObject {
    var token: NotificationToken { get }
    func prepareToSkip()
    func skip(from base: Snapshot, to new: Snapshot)
    func end()
}

struct WeakStream {
    weak var stream: (any RealmStream)?
}
