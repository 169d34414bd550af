import StorageEngine

/// Everything a frozen realm is: one pinned version of a file and the schema to read it with.
/// `Sendable`, so any task can make a handle of its own on the same version (`makeRealm()`):
/// handles keep per-handle caches, so one per task lets many tasks read at once without locks.
struct FrozenRealmState: Sendable {
    let configuration: Realm.Configuration
    let database: Database
    let coordinator: RealmCoordinator
    let snapshot: Snapshot
    let schemas: [String: ObjectSchema]

    func makeRealm() -> Realm {
        Realm(frozen: self)
    }
}

extension Realm {
    /// Whether this realm is frozen: it reads one version forever and cannot be written.
    public var isFrozen: Bool {
        if case .frozen = confinement { true } else { false }
    }

    /// A frozen realm reading this realm's current version. It never changes, keeps its
    /// version readable while it (or anything read from it) lives, and is not confined: pass
    /// what it reads to other tasks with `Frozen` (see `Docs/Internals/Concurrency.md`).
    ///
    /// - Important: Freeze outside a write transaction.
    ///
    /// - Returns: A frozen realm reading this realm's current version.
    public func freeze() -> Realm {
        checkThread()
        if isFrozen { return self }
        return Realm(frozen: frozenState())
    }

    /// The state of a frozen realm at this realm's current version.
    func frozenState() -> FrozenRealmState {
        require(!isWriting, "a realm in a write transaction cannot be frozen; commit or cancel the write first")
        guard let snapshot = try? snapshot() else {
            stop("the realm's current version cannot be read, so it cannot be frozen")
        }
        return FrozenRealmState(configuration: configuration, database: database, coordinator: coordinator,
                                snapshot: snapshot, schemas: objectSchemas)
    }

    /// A live realm on the same file, confined to the caller's isolation (actor, task, or
    /// thread); for a live realm, itself.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: A live realm on the same file.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Realm {
        guard isFrozen else { return self }
        return Realm.live(configuration: configuration, isolation: isolation)
    }

    /// A new live realm on `configuration`'s file, for the caller's isolation.
    static func live(configuration: Configuration, isolation: isolated (any Actor)?) -> Realm {
        let confinement: Confinement = isolation.map { .actor($0) } ?? .currentTaskOrThread
        do {
            return try Realm(configuration: configuration, confinement: confinement)
        } catch {
            stop("the realm the frozen value came from could not be opened again: \(error)")
        }
    }
}
