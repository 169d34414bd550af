import StorageEngine

/// The one coordinator of a file in this process, shared by every `Realm` handle on it.
///
/// It owns what handles on one file must agree on: the queue of `asyncWrite`s (arrival order,
/// waiting by suspension), the newest version and its fan-out to change streams, and the
/// watch on the file for commits of other processes. Reads never go through it: each handle
/// reads its own pinned snapshot synchronously. The version history with its changesets and the
/// pins live in the engine's `SharedFile`, which the coordinator keeps open.
actor RealmCoordinator {
    /// The file, kept open (its cache, pins and recent changesets) while any handle uses it.
    nonisolated let database: Database
    nonisolated let writeQueue = WriteQueue()
    nonisolated let versions: VersionSignal
    /// The schema version the live handles on the file in this process opened with, and how
    /// many they are (see `claimSchemaVersion`).
    private nonisolated let schemaVersion = Locked<(version: UInt64, handles: Int)>((0, 0))
    /// How often the file is checked for other processes' commits while a stream waits.
    static let pollInterval: Duration = .milliseconds(2)
    private var poller: Task<Void, Never>?

    private static let coordinators = Locked<[String: WeakCoordinator]>([:])

    private init(database: Database) throws {
        self.database = database
        versions = VersionSignal(newest: try database.newestVersion())
    }

    deinit {
        poller?.cancel()
        versions.releasePoller()
    }

    /// The coordinator of the file `key` names (its canonical path, or its in-memory
    /// identifier), created on `database` if this process has none yet.
    static func coordinator(for key: String, database: Database) throws -> RealmCoordinator {
        let (coordinator, isNew) = try coordinators.withLock { coordinators in
            // The coordinator of another file under the same path (deleted and created again)
            // is replaced.
            if let existing = coordinators[key]?.coordinator, existing.database.isSameFile(as: database) { return (existing, false) }
            let created = try RealmCoordinator(database: database)
            coordinators[key] = WeakCoordinator(coordinator: created)
            return (created, true)
        }
        if isNew, database.path != nil {
            // Weakly: the coordinator ends with its last handle, not when this task runs.
            Task { [weak coordinator] in await coordinator?.startPolling() }
        }
        return coordinator
    }

    /// Counts a handle opened with schema version `version` in, or throws if live handles
    /// opened with another one use the file: their models would read the rows a migration
    /// rewrites. Each claim is ended by `releaseSchemaVersion()`.
    ///
    /// - Throws: `invalidSchemaVersion`, as RealmSwift does ("already opened with different
    ///   schema version").
    nonisolated func claimSchemaVersion(_ version: UInt64, of name: String) throws {
        try schemaVersion.withLock { claimed in
            if claimed.handles > 0, claimed.version != version {
                throw RealmError(code: .invalidSchemaVersion, message: "the realm '\(name)' is already open in this process with schema version \(claimed.version), so it cannot be opened with schema version \(version); close every handle on it first (or open it with version \(claimed.version))")
            }
            claimed = (version, claimed.handles + 1)
        }
    }

    /// Counts a handle that claimed its schema version out.
    nonisolated func releaseSchemaVersion() {
        schemaVersion.withLock { $0.handles -= 1 }
    }

    /// Watches the file for commits of other processes while some stream waits, checking its
    /// header every `pollInterval` (a read of two header slots; nothing while no one waits).
    private func startPolling() {
        guard poller == nil else { return }
        let versions = self.versions
        let database = self.database
        // Both weakly: the file closes as its last handle goes, not when this task next runs
        // (a reopen right after must find it closed, to compact it on launch).
        poller = Task.detached(priority: .utility) { [weak self, weak database] in
            while !Task.isCancelled, self != nil {
                await versions.waitForListener()
                while !Task.isCancelled, versions.hasWaiters {
                    if let newest = try? database?.newestVersion() { versions.publish(newest) }
                    try? await Task.sleep(for: RealmCoordinator.pollInterval)
                }
            }
        }
    }
}

private struct WeakCoordinator: Sendable {
    weak var coordinator: RealmCoordinator?
}
