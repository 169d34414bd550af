import StorageEngine

/// Opening realms confined to actors, and writing without blocking a thread.
extension Realm {
    /// Runs `block` in a write transaction and commits it, returning the block's value.
    ///
    /// Waiting for the write lock suspends the task, never blocks a thread: writers of this
    /// process are served in arrival order, and while another process (or a synchronous
    /// `write` on another thread) holds the lock the task polls it with a bounded backoff.
    /// Before `block` runs the realm advances to the newest version, as `write` does.
    ///
    /// When other `asyncWrite`s of this process wait behind it, the commit joins a *commit
    /// group*: the next writer starts from it at once, and the last writer of the group
    /// writes one header and syncs once for all of them (see `Docs/Internals/Concurrency.md`). Each
    /// `asyncWrite` still returns only once its commit is durable, and no other realm sees it
    /// before.
    ///
    /// - Throws: what `block` throws, `CancellationError` if the task is cancelled before the
    ///   commit, or what `commitWrite()` throws; in each case nothing of the write is stored.
    /// - Important: Use it on a realm confined to an actor or a task (`try await Realm.open()`):
    ///   a thread-confined realm cannot know on which thread the task resumes.
    ///
    /// - Parameters:
    ///   - tokens: Streams (by their tokens) that do not report this write.
    ///   - block: The transaction's work, run on the realm's actor.
    ///   - isolation: The caller's actor; leave it to its default.
    /// - Returns: What `block` returns.
    @discardableResult
    public func asyncWrite<Result>(
        withoutNotifying tokens: [NotificationToken] = [],
        _ block: () throws -> Result,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Result {
        checkThread()
        require(!confinement.isThread, "asyncWrite needs a realm confined to an actor or a task (try await Realm.open()); a realm opened with try Realm() is confined to a thread, so use write { } there")
        require(!isWriting, "this realm is already in a write transaction; write transactions cannot be nested, so commit or cancel the current one first")
        require(!isFrozen, "a frozen realm cannot be written; write through a live realm (thaw() gives one)")
        if configuration.readOnly {
            throw RealmError(code: .readOnly, message: "the realm was opened read-only; open it without readOnly to write")
        }
        let queue = coordinator.writeQueue
        try await queue.acquire()
        var holdsTurn = true
        // Whatever happens while this writer holds the turn, the turn moves on, and a commit
        // group no one follows is made durable.
        defer { if holdsTurn { endTurn(queue) } }
        // From here to the commit nothing suspends: a writer that joined the group holds up
        // every other writer of the file until it commits or rolls back.
        start(try await beginWriteWhenFree())
        prepareToSkip(tokens)
        let result: Result
        do {
            result = try block()
            try Task.checkCancellation()
        } catch {
            if transaction != nil { cancelWrite() }
            throw error
        }
        guard transaction != nil else { return result }
        let outcome = CommitOutcome()
        try commitWrite(withoutNotifying: tokens, whenDurable: outcome.report)
        holdsTurn = false
        if !queue.handOff() {
            // The last writer in line makes the group durable, still holding the turn, on a
            // thread of its own: writers that arrive meanwhile queue up behind it and form the
            // next group, even when this task's executor has no other thread to run them on.
            let database = self.database
            await GroupSyncer.shared.run { _ = try? database.commitOpenGroup() }
            queue.release()
        }
        do {
            try await outcome.value()
        } catch {
            // The group this commit joined was lost: the file holds the version before it.
            if let durable = try? database.snapshot() { advance(to: durable) }
            throw (error as? StorageError).map(RealmError.init) ?? error
        }
        return result
    }

    /// Waits, suspending, until this handle can start a write transaction: the file's write
    /// lock is free or the process's commit group admits it.
    private func beginWriteWhenFree(isolation: isolated (any Actor)? = #isolation) async throws -> WriteTransaction {
        var delay: Duration = .microseconds(50)
        while true {
            try Task.checkCancellation()
            if let transaction = try RealmError.translating({ try database.tryBeginWrite(joiningGroup: true) }) {
                return transaction
            }
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .milliseconds(5))
        }
    }

    /// Hands the write turn to the next waiting writer, which continues the commit group; with
    /// no one waiting, makes the group durable (its writers learn an error from their
    /// outcomes) and frees the turn.
    private func endTurn(_ queue: WriteQueue) {
        guard !queue.handOff() else { return }
        _ = try? database.commitOpenGroup()
        queue.release()
    }

    /// Moves this handle to the newest version, as `refresh()` does, including versions
    /// other processes committed. Returns whether the version changed.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: Whether the version changed.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        refresh()
    }

    /// How many versions of the file this process's handles, snapshots and streams keep
    /// readable. Each one holds the space of what was overwritten since; see
    /// `Configuration.maximumNumberOfActiveVersions`.
    public var numberOfActiveVersions: Int {
        database.pinnedVersionCount
    }

    /// Throws if committing now would keep more versions alive than the configuration allows:
    /// those pinned now, and the one the commit makes.
    func checkActiveVersions() throws {
        guard let maximum = configuration.maximumNumberOfActiveVersions else { return }
        let active = database.pinnedVersionCount + 1
        guard active <= Int(maximum) else {
            cancelWrite()
            throw RealmError(code: .limitExceeded, message: "committing would keep \(active) versions of the realm readable, more than maximumNumberOfActiveVersions (\(maximum)); release frozen objects, thread-safe references or realms that hold old versions (or call invalidate() on idle realms)")
        }
    }
}
