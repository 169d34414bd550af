import StorageEngine

/// The realm's side of change streams: the streams it knows, skipping writes made without
/// notifying them, ending them on `invalidate()`, and `realm.changes`.
extension Realm {
    /// A stream that yields `.didChange` whenever the realm advances to a version with changes:
    /// a commit through this handle, another handle or another process.
    public var changes: ChangeStream<Notification> {
        checkThread()
        return ChangeStream(core: StreamDriver(realm: self, observer: RealmObserver()))
    }

    func register(_ stream: some RealmStream) {
        streams = streams.filter { $0.value.stream != nil }
        streams[ObjectIdentifier(stream.token)] = WeakStream(stream: stream)
    }

    /// The live streams whose tokens are among `tokens`; a token of another realm stops.
    private func streams(of tokens: [NotificationToken]) -> [any RealmStream] {
        tokens.compactMap { token in
            guard let stream = streams[ObjectIdentifier(token)]?.stream else {
                require(token.isInvalidated, "a notification token passed to withoutNotifying must belong to a stream of this realm; streams of other realms are not notified by this write anyway")
                return nil
            }
            return stream
        }
    }

    func prepareToSkip(_ tokens: [NotificationToken]) {
        for stream in streams(of: tokens) { stream.prepareToSkip() }
    }

    func skipNotifications(of tokens: [NotificationToken], from base: Snapshot, to new: Snapshot) {
        for stream in streams(of: tokens) { stream.skip(from: base, to: new) }
    }

    /// Ends every stream of this realm (on `invalidate()`).
    func endStreams() {
        for stream in streams.values.compactMap(\.stream) { stream.end() }
        streams.removeAll()
    }

    /// Moves to the newest version before a stream computes its element, if `autorefresh` is
    /// on and no write transaction is open. Returns whether the realm can advance this way.
    @discardableResult
    func advanceForStream() -> Bool {
        guard autorefresh, !isWriting, !isFrozen else { return false }
        refresh()
        return true
    }

    /// The version a stream's element describes: the one the realm reads.
    func streamSnapshot() -> Snapshot? {
        if let transaction { return transaction.base }
        return try? snapshot()
    }
}

/// `realm.changes`: any version with changes is a change.
final class RealmObserver: ChangeObserver {
    func initial() -> Realm.Notification? { nil }
    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> Realm.Notification? {
        changes.isEmpty ? nil : .didChange
    }
    func rebase() {}
    var isFinished: Bool { false }
    var hasInitial: Bool { false }
}
