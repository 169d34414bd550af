import Foundation
import StorageEngine

/// The initializers of `Realm`. They live in this protocol's extension because a protocol's
/// initializer may hand back an object that already exists, where a class's own always makes
/// a new one: opening a realm in a context (a thread, an actor) that has it open already gives
/// that handle, as RealmSwift's cache does (see `RealmHandleCache`). Only `Realm` adopts it.
public protocol RealmOpening {}

extension Realm: RealmOpening {}

extension RealmOpening where Self == Realm {
    /// Opens the default realm (`Configuration.defaultConfiguration`) on this thread, or
    /// returns the handle already open on it.
    ///
    /// - Throws: What `init(configuration:)` throws.
    public init() throws {
        self = try RealmHandleCache.open(.defaultConfiguration, confinement: .thread(pthread_self()))
    }

    /// Opens the realm stored in `fileURL` on this thread, creating it if needed, or returns
    /// the handle already open on it.
    ///
    /// - Parameter fileURL: Where the realm's file is.
    /// - Throws: What `init(configuration:)` throws.
    public init(fileURL: URL) throws {
        self = try RealmHandleCache.open(Realm.Configuration(fileURL: fileURL), confinement: .thread(pthread_self()))
    }

    /// Opens the realm `configuration` describes on this thread, migrating a file of a lower
    /// `schemaVersion` first (see `Docs/Migrations.md`).
    ///
    /// A realm already open on this thread with a configuration that opens it the same way
    /// (file, `readOnly`, key, schema version, model classes) is returned as it is, as
    /// RealmSwift does: its objects, write transaction and version are this handle's.
    ///
    /// - Parameter configuration: The realm to open and how.
    /// - Throws: `RealmError` with code `schemaMismatch` (listing every difference) when the
    ///   file's schema differs from `objectTypes` in more than added classes and the schema
    ///   version was not raised; `invalidSchemaVersion` for a file of a higher version, or one
    ///   open in this process with another version; what the migration block throws, or what
    ///   failed the migration (`duplicatePrimaryKey`...), in which cases the file is not
    ///   changed; `alreadyOpen` when `deleteRealmIfMigrationNeeded` meets an open file;
    ///   `timedOut` when another process holds the file too long; `fileNotFound` for a missing
    ///   read-only file; `invalidEncryptionKey`; `unsupportedConfiguration`; or an engine error
    ///   (`invalidDatabase`, `filePermissionDenied`...).
    public init(configuration: Realm.Configuration) throws {
        self = try RealmHandleCache.open(configuration, confinement: .thread(pthread_self()))
    }

    /// Opens the realm `configuration` describes, confined to `actor`: use it only from code
    /// isolated to that actor (`@MainActor` included). A realm already open on the actor with
    /// a configuration that opens it the same way is returned as it is.
    ///
    ///     actor Store {
    ///         var realm: Realm!
    ///         func setUp() async throws { realm = try await Realm(configuration: config, actor: self) }
    ///     }
    ///
    /// The work of opening (the file, its redo log, compaction, the schema check and a
    /// migration) runs on another thread while the actor is free for other work; the handle
    /// is made on the actor once it is done.
    ///
    /// - Parameters:
    ///   - configuration: The realm to open.
    ///   - actor: The actor the realm is confined to.
    /// - Throws: `CancellationError` if the task is cancelled before opening starts or by the
    ///   time it ends (a migration under way is finished, not cut short); what
    ///   `init(configuration:)` throws otherwise.
    public init<A: Actor>(configuration: Realm.Configuration = .defaultConfiguration, actor: isolated A) async throws {
        self = try await Realm.openConfined(configuration, confinement: .actor(actor))
    }
}

extension Realm {
    /// Opens the realm `configuration` describes, confined to the caller's isolation: the
    /// caller's actor, or, called from a task with no actor, that task. A realm already open
    /// there with a configuration that opens it the same way is returned as it is.
    ///
    /// The work of opening (the file, its redo log, compaction, the schema check and a
    /// migration) runs on another thread while the caller suspends, as RealmSwift's
    /// `asyncOpen` does; the handle is made in the caller's isolation once it is done.
    ///
    /// - Parameters:
    ///   - configuration: The realm to open.
    ///   - isolation: Where the realm is confined: the caller's actor by default.
    /// - Returns: The open realm.
    /// - Throws: `CancellationError` if the task is cancelled before opening starts or by the
    ///   time it ends (a migration under way is finished, not cut short); what
    ///   `init(configuration:)` throws otherwise.
    public static func open(
        configuration: Configuration = .defaultConfiguration,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Realm {
        try await openConfined(configuration, confinement: isolation.map { .actor($0) } ?? .currentTaskOrThread)
    }

    /// The handle of `configuration` confined to `confinement`: the live one, or one opened
    /// after the work of opening was done on another thread.
    fileprivate static func openConfined(
        _ configuration: Configuration, confinement: Confinement, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Realm {
        if let cached = RealmHandleCache.handle(for: configuration, confinement: confinement) { return cached }
        let prepared = try await PreparedFile.prepare(configuration)
        defer { withExtendedLifetime(prepared) {} }
        return try RealmHandleCache.open(configuration, confinement: confinement)
    }
}
