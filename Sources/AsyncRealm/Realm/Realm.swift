import CSwiftRuntime
import CThreadPointer
import Foundation
import StorageEngine

/// A handle on a realm: a database file (or an in-memory database) and its object schema.
///
/// A `Realm` opened with `try Realm(...)` is confined to the thread that opened it; one opened
/// with `try await Realm.open()` or `try await Realm(configuration:actor:)` to an actor (or, in
/// a task with no actor, to that task). Using it from anywhere else stops with a precondition
/// failure. Handles on the same file in one process share one `RealmCoordinator`: the file's
/// cache, newest version and change fan-out, and a queue for their writes.
public final class Realm {
    /// The configuration this realm was opened with.
    public let configuration: Configuration
    let database: Database
    let coordinator: RealmCoordinator
    /// Where this handle may be used.
    let confinement: Confinement
    /// What `checkThread` compares with the current thread's pointer
    /// (`asyncrealm_thread_pointer`), read on every property access: the owning thread's for a
    /// thread-confined realm, `anyThread` for a frozen one, and `checkConfinement` for one
    /// confined to an actor or a task (`Confinement.check` decides).
    @usableFromInline let fastThreadCheck: UInt
    @usableFromInline static let anyThread: UInt = 0
    private static let checkConfinement: UInt = .max
    /// The executor of the actor the realm is confined to, which `checkConfinement` compares
    /// with the caller's before asking the runtime (see `ExecutorIdentity`); nil otherwise.
    private let ownerExecutor: ExecutorIdentity?
    /// The task a task-confined realm belongs to, counted for as long as the realm lives: its
    /// confinement knows the task by address, and a task that ended could otherwise leave its
    /// address to a new task, which would pass for the owner (and be given this handle).
    private let owningTask: UnsafeMutableRawPointer?
    /// Whether the realm advances to the newest version by itself (the default): whenever one
    /// of its change streams computes an element, and when it resolves a `ThreadSafeReference`.
    /// Off, it advances only on `refresh()` and at the start of a write, and its streams report
    /// changes then. Writes always start at the newest version. (A realm never advances in the
    /// middle of the synchronous code that reads it: see `Docs/Internals/Concurrency.md`.)
    public var autorefresh = true

    /// The streams observing this realm, by token, to skip commits made without notifying
    /// them and to end them when the realm is invalidated.
    var streams: [ObjectIdentifier: WeakStream] = [:]
    /// The version this handle reads; nil after `invalidate()` until the next read.
    private var readSnapshot: Snapshot?
    /// The schema table's roots in `readSnapshot`: a new snapshot whose roots differ brings
    /// schema changes to load.
    private var readSchemaRoots: TableRoots?
    @exclusivity(unchecked) private(set) var transaction: WriteTransaction?
    /// The schema stored in the file, plus the classes registered since opening. (Exclusivity
    /// is unchecked: every `filter` reads it, and only the realm's own thread changes it.)
    @exclusivity(unchecked) var objectSchemas: [String: ObjectSchema]
    /// What this realm knows of each model class used through it, by class name.
    var classInfos: [ObjectIdentifier: ClassInfo] = [:]
    /// What this realm knows of each class read through `dynamicObjects`, by class name.
    var dynamicClassInfos: [String: ClassInfo] = [:]
    /// The class infos a migration replaced (see `retireClassInfos`), kept for as long as the
    /// realm: an accessor does not own its class info, and the block may have kept objects
    /// made with them.
    var retiredClassInfos: [ClassInfo] = []
    /// The class info found last: most code uses one class at a time. Not counted: the realm
    /// keeps it (`classInfos`, then `retiredClassInfos`), and finding it then costs no retain.
    @exclusivity(unchecked) var lastClassInfo: Unmanaged<ClassInfo>?
    /// Changes whenever what this handle reads may have changed (a write, a new version), so
    /// cached rows and key lists know to reread. (Exclusivity is unchecked: it is read on every
    /// property read, and only the realm's own thread changes it.)
    @exclusivity(unchecked) @usableFromInline private(set) var stamp = 0
    /// `SmallASCIIString.isLaidOutAsExpected`, read once: the `String` properties' reads check
    /// it for every string, and reading the global from another module takes a call.
    @usableFromInline let buildsSmallASCIIStrings = SmallASCIIString.isLaidOutAsExpected
    /// The first error met by a non-throwing write call (`add`, `delete`, a property set); the
    /// commit throws it and rolls the transaction back.
    var transactionFailure: RealmError?
    /// Whether `beginWrite()` failed to start the write: the handle is in a write transaction
    /// with no engine transaction behind it, whose changes are ignored and whose commit throws
    /// `transactionFailure` (RealmSwift's `beginWrite` does not throw either).
    private(set) var writeStartFailed = false
    /// What the objects added in the current write share (see `WriteAdditions`); made by the
    /// write's first add.
    @exclusivity(unchecked) var additions: WriteAdditions?
    /// The property a recorder read last (see `propertyName(of:in:)`).
    var recordedProperty = ""
    /// While a key path is followed through links (`keyPathText(of:in:)`): each property a
    /// recorder read, in order; nil otherwise, when a link read by a recorder is nil.
    var recordedPath: [String]?
    /// How many times `invalidate()` was called: accessors and results made before the last
    /// call (which remember the count then) are invalid.
    @exclusivity(unchecked) private(set) var invalidations = 0
    /// The thread that began the current write transaction, when it was begun synchronously.
    private var synchronousWriteThread: pthread_t?
    /// Counts the write transactions begun, so that what is cached for one is not used in another.
    private(set) var transactionSerial = 0
    /// What this handle's last commit did (its changeset, the bytes it wrote).
    private(set) var lastCommit: CommitResult?
    /// Whether this handle is running a migration, whose block may change primary keys.
    var isMigrating = false
    /// While a migration block runs, the frozen handle its `oldObject`s belong to: one of them
    /// given for a link stands for the same object of the new version (see `migratedKey`).
    weak var migrationSource: Realm?
    /// Whether this handle counts in its coordinator's schema version (see
    /// `RealmCoordinator.claimSchemaVersion`): every live handle but frozen ones.
    private var claimsSchemaVersion = false
    /// What the adds of a write reuse from one call to the next (see `AddScratch`).
    @exclusivity(unchecked) var addScratch = AddScratch()

    init(configuration: Configuration, confinement: Confinement) throws {
        try configuration.checkSupported()
        self.configuration = configuration
        self.confinement = confinement
        fastThreadCheck = Self.fastThreadCheck(for: confinement)
        ownerExecutor = if case .actor(let actor) = confinement { ExecutorIdentity(actor.unownedExecutor) } else { nil }
        owningTask = if case .task(let task) = confinement { Self.retainTask(task) } else { nil }
        let models = try configuration.objectTypes.map { try SchemaDiscovery.schema(for: $0) }
        database = try Self.openDatabase(for: configuration, models: models)
        let database = self.database
        coordinator = try RealmError.translating {
            try RealmCoordinator.coordinator(for: database.path ?? "inmemory:" + (configuration.inMemoryIdentifier ?? ""), database: database)
        }
        let snapshot = try RealmError.translating { try database.snapshot() }
        readSnapshot = snapshot
        objectSchemas = try SchemaStore.load(from: snapshot)
        // Fully initialised from here: `deinit` ends the claim if opening fails.
        try coordinator.claimSchemaVersion(configuration.schemaVersion, of: configuration.fileURL?.path ?? configuration.inMemoryIdentifier ?? "")
        claimsSchemaVersion = true
        try openSchema(models: models)
    }

    /// A frozen handle on `snapshot`: it reads that version forever, from wherever it is.
    init(frozen state: FrozenRealmState) {
        configuration = state.configuration
        database = state.database
        coordinator = state.coordinator
        confinement = .frozen
        fastThreadCheck = Self.anyThread
        ownerExecutor = nil
        owningTask = nil
        readSnapshot = state.snapshot
        objectSchemas = state.schemas
    }

    deinit {
        RealmHandleCache.forget(self)
        transaction?.rollback()
        releaseSynchronousWrite()
        releaseSchemaVersionClaim()
        if let owningTask { swift_release(owningTask) }
    }

    /// Counts a reference to the task at `address`, the one running now, which the realm
    /// being made is confined to; nil if that is not the running task.
    private static func retainTask(_ address: Int) -> UnsafeMutableRawPointer? {
        guard let current = swift_task_getCurrent(), Int(bitPattern: current) == address else { return nil }
        return swift_retain(UnsafeMutableRawPointer(mutating: current))
    }

    /// Gives back the schema version this handle claimed (`RealmCoordinator.claimSchemaVersion`):
    /// when it ends, or when its open fails while objects of it are still held (those a failed
    /// migration's block kept), which keep it alive though it never opened.
    func releaseSchemaVersionClaim() {
        guard claimsSchemaVersion else { return }
        claimsSchemaVersion = false
        coordinator.releaseSchemaVersion()
    }

    // MARK: Schema

    /// The object types of this realm: those stored in the file and those registered since.
    public var schema: Schema {
        checkThread()
        return Schema(Array(objectSchemas.values))
    }

    /// Checks `schema` against the file and stores the classes the file does not have yet
    /// (and the schema version, in a file that has no schema yet).
    ///
    /// The check is made again inside the write that stores them, against the schema as the
    /// write lock lets it be seen: another handle or process may have stored the same class,
    /// with other properties, since this handle read the file. Checking and storing are one
    /// step, so two models of one class never both succeed. With `isComplete`, `schema` is the
    /// whole model (`objectTypes`), and a stored class it lacks is a difference too.
    func register(_ schema: Schema, isComplete: Bool = false) throws {
        let added = try classesToAdd(schema, stored: objectSchemas, isComplete: isComplete)
        defer { adoptModels(schema) }
        guard !added.isEmpty else { return }
        if configuration.readOnly {
            throw RealmError(code: .readOnly, message: "the read-only realm has no class \(added.map { "'\($0.className)'" }.joined(separator: ", ")); open it for writing once to add them")
        }
        var current: [String: ObjectSchema] = [:]
        var stored: [ObjectSchema] = []
        try RealmError.translating {
            let store = { (transaction: WriteTransaction) throws in
                current = try SchemaStore.load(in: transaction)
                try self.checkVersion(try SchemaStore.version(in: transaction))
                stored = try self.classesToAdd(schema, stored: current, isComplete: isComplete)
                if try SchemaStore.version(in: transaction) == nil {
                    try SchemaStore.setVersion(self.configuration.schemaVersion, in: transaction)
                }
                for objectSchema in stored { try SchemaStore.add(objectSchema, in: transaction) }
            }
            if let transaction {
                try store(transaction)
            } else {
                let (_, commit) = try database.write { try store($0) }
                coordinator.versions.publish(commit.version)
                readSnapshot = try database.snapshot()
            }
        }
        for objectSchema in Array(current.values) + stored { objectSchemas[objectSchema.className] = objectSchema }
    }

    /// Takes the models' own schemas for the classes this handle knows, which agree with the
    /// file's (`classesToAdd` checked): they name properties as the models do, where the file
    /// names them by column (`Object.propertiesMapping()`).
    private func adoptModels(_ schema: Schema) {
        for model in schema.objectSchema where objectSchemas[model.className] != nil { objectSchemas[model.className] = model }
    }

    /// The classes of `schema` that `stored` does not have; throws `schemaMismatch` naming
    /// every difference if a class it has differs.
    private func classesToAdd(_ schema: Schema, stored: [String: ObjectSchema], isComplete: Bool) throws -> [ObjectSchema] {
        let differences = SchemaDifferences.between(stored: stored, models: schema.objectSchema, modelsAreComplete: isComplete)
        guard differences.isEmpty else { throw schemaMismatch(differences) }
        return schema.objectSchema.filter { stored[$0.className] == nil }
    }

    // MARK: Reading

    /// Marks that what this handle reads has changed: rows and results cached before are read
    /// again.
    func bumpStamp() { stamp += 1 }

    /// Makes `snapshot` the version this handle reads (a newer one, or the durable one after
    /// the commit it had advanced to was lost), picking up classes that other handles stored
    /// since.
    func advance(to snapshot: Snapshot) {
        stamp += 1
        let schemaRoots = snapshot.roots(ofTable: SchemaStore.tableName)
        let schemaChanged = schemaRoots != (readSnapshot == nil ? nil : readSchemaRoots)
        readSnapshot = snapshot
        readSchemaRoots = schemaRoots
        if schemaChanged, let stored = try? SchemaStore.load(from: snapshot) {
            adoptStoredSchema(stored)
        }
    }

    /// Takes the classes other handles stored. A class whose stored schema changed (another
    /// process migrated the file) replaces this handle's view of it if the handle never read
    /// it; one it reads objects of stops the program, since its objects' columns moved.
    private func adoptStoredSchema(_ stored: [String: ObjectSchema]) {
        for (className, schema) in stored {
            guard let current = objectSchemas[className] else {
                objectSchemas[className] = schema
                continue
            }
            let differences = SchemaDifferences.between(stored: schema, model: current)
            guard !differences.isEmpty else { continue }
            let isRead = dynamicClassInfos[className] != nil || classInfos.values.contains { $0.schema.className == className }
            require(!isRead, "another process migrated this realm while this handle read objects of '\(className)' with the old models: \(differences.joined(separator: "; ")). Open the realm again with the new models and schemaVersion")
            objectSchemas[className] = schema
        }
    }

    /// The version this handle reads, taking the newest one if the handle holds none.
    func snapshot() throws -> Snapshot {
        if let transaction { return transaction.base }
        if let readSnapshot { return readSnapshot }
        let snapshot = try RealmError.translating { try database.snapshot() }
        advance(to: snapshot)
        return snapshot
    }

    /// Whether the realm holds no objects.
    public var isEmpty: Bool {
        checkThread()
        if let transaction {
            return objectSchemas.keys.allSatisfy { transaction.tableIfPresent(SchemaStore.tableName(forClass: $0))?.isEmpty ?? true }
        }
        let snapshot = readOrStop { try self.snapshot() }
        return objectSchemas.keys.allSatisfy { snapshot.tableIfPresent(SchemaStore.tableName(forClass: $0))?.isEmpty ?? true }
    }

    /// Moves this handle to the newest version. Returns whether the version changed.
    ///
    /// - Returns: Whether the version changed.
    @discardableResult
    public func refresh() -> Bool {
        checkThread()
        guard !isWriting, !isFrozen else { return false }
        let old = readSnapshot?.version
        guard let newest = try? database.snapshot() else { return false }
        // This realm may read its own commit ahead of the newest durable version while the
        // commit group it joined is being made durable (see `asyncWrite`): never step back.
        if let old, newest.version < old { return false }
        advance(to: newest)
        guard newest.version != old else { return false }
        // Streams of a realm that does not advance by itself wait for this.
        if !autorefresh { coordinator.versions.wake() }
        return true
    }

    /// Releases the version this handle reads, so later commits can reuse the space only it
    /// could see; the next read takes the newest version. Inside a write it cancels the write.
    ///
    /// As in Realm, every object, list and linking objects read through this handle before
    /// the call is invalidated (`isInvalidated` is true; using one stops with a message), and
    /// every `Results` made before it is empty from then on. Read them again from the realm.
    public func invalidate() {
        checkThread()
        // A frozen realm reads its version for as long as it lives.
        guard !isFrozen else { return }
        if isWriting { cancelWrite() }
        endStreams()
        invalidations += 1
        readSnapshot = nil
        // Tables and rows cached by accessors and results belong to the released version.
        stamp += 1
    }

    // MARK: Writing

    /// Whether this handle is in a write transaction.
    public var isInWriteTransaction: Bool {
        checkThread()
        return isWriting
    }

    /// Whether a write transaction is open: begun and not yet committed or cancelled, including
    /// one whose start failed.
    var isWriting: Bool { transaction != nil || writeStartFailed }

    /// Begins a write transaction, first moving this handle to the newest version. Waits while
    /// another handle, thread or process is writing.
    ///
    /// As in RealmSwift this does not throw. If the write cannot start (the realm is
    /// read-only, the file cannot be read, the write lock is not free within
    /// `Configuration.openTimeout`), the handle is in a write transaction all the same, its
    /// changes are not made, and `commitWrite()` throws the reason. `write { }` throws it at
    /// once, before its block runs.
    public func beginWrite() {
        do {
            try startWrite()
        } catch {
            writeStartFailed = true
            transactionFailure = (error as? RealmError) ?? RealmError(code: .fail, message: "\(error)")
        }
    }

    /// Begins a write transaction as `beginWrite()` does, throwing what stops it.
    private func startWrite() throws {
        checkThread()
        require(!isWriting, "this realm is already in a write transaction; write transactions cannot be nested, so commit or cancel the current one first")
        require(!isFrozen, "a frozen realm cannot be written; write through a live realm (thaw() gives one)")
        if configuration.readOnly {
            throw RealmError(code: .readOnly, message: "the realm was opened read-only; open it without readOnly to write")
        }
        let file = ObjectIdentifier(coordinator)
        SynchronousWriters.checkNotHolding(file)
        start(try RealmError.translating { try database.beginWrite() })
        synchronousWriteThread = SynchronousWriters.hold(file)
    }

    /// The write transaction a change is made in; nil in a write whose start failed (the
    /// change is dropped: the commit throws). Outside a write transaction, stops with `message`.
    func transactionForChange(_ message: @autoclosure () -> String) -> WriteTransaction? {
        if let transaction { return transaction }
        require(writeStartFailed, message())
        return nil
    }

    /// Ends the record of a synchronous write transaction's thread (`SynchronousWriters`).
    private func releaseSynchronousWrite() {
        guard let thread = synchronousWriteThread else { return }
        synchronousWriteThread = nil
        SynchronousWriters.release(ObjectIdentifier(coordinator), heldBy: thread)
    }

    /// Makes `transaction`, which holds the write lock, this handle's write transaction.
    func start(_ transaction: WriteTransaction) {
        self.transaction = transaction
        transactionSerial += 1
        transactionFailure = nil
        advance(to: transaction.base)
    }

    /// Commits the write transaction: durable when this returns. The change streams of
    /// `tokens` (which must observe this realm) do not report this commit's changes.
    ///
    /// - Throws: the error that failed the transaction, or an I/O error; the file is then as
    ///   it was before `beginWrite()`, and the transaction is over.
    ///
    /// - Parameter tokens: Streams (by their tokens) that do not report this transaction.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try commitWrite(withoutNotifying: tokens, whenDurable: nil)
    }

    /// Commits as `commitWrite(withoutNotifying:)` does; with `whenDurable`, the commit may join
    /// the process's commit group (see `asyncWrite`), and `whenDurable` reports its outcome.
    func commitWrite(withoutNotifying tokens: [NotificationToken], whenDurable: (@Sendable ((any Swift.Error)?) -> Void)?) throws {
        checkThread()
        if writeStartFailed, let failure = transactionFailure {
            cancelWrite()
            throw failure
        }
        guard let transaction else {
            stop("commitWrite() needs a write transaction; call beginWrite() first")
        }
        if let failure = transactionFailure {
            cancelWrite()
            throw failure
        }
        try checkActiveVersions()
        self.transaction = nil
        releaseSynchronousWrite()
        if !tokens.isEmpty {
            // A write begun without naming the tokens (`beginWrite()`): the skipped streams
            // first report what was committed before the write began. With the transaction
            // set aside, the realm reads the write's first version again for a moment (the
            // stamp tells cached rows and results so), and each stream computes its element up
            // to there; `skipNotifications` then leaves out exactly this write. A no-op for a
            // stream `write(withoutNotifying:)` prepared at the start.
            stamp += 1
            prepareToSkip(tokens)
            stamp += 1
        }
        // The handle's hold on the transaction's tables goes before the commit, so that a
        // logged commit can free them while its record is being written.
        additions = nil
        forgetTableWriters()
        // Change streams hear of a commit once it is durable.
        let versions = coordinator.versions
        let database = self.database
        let (result, newest) = try RealmError.translating {
            guard let whenDurable else { return try transaction.commitAndSnapshot() }
            return try transaction.commitAndSnapshot { error in
                if error == nil { versions.publish(database.durableVersion) }
                whenDurable(error)
            }
        }
        if whenDurable == nil { versions.publish(result.version) }
        lastCommit = result
        advance(to: newest)
        if !tokens.isEmpty { skipNotifications(of: tokens, from: transaction.base, to: newest) }
    }

    /// Reverts every change of the write transaction and ends it.
    public func cancelWrite() {
        checkThread()
        if writeStartFailed {
            writeStartFailed = false
            transactionFailure = nil
            return
        }
        guard let transaction else {
            stop("cancelWrite() needs a write transaction; call beginWrite() first")
        }
        self.transaction = nil
        releaseSynchronousWrite()
        transactionFailure = nil
        transaction.rollback()
        forgetTableWriters()
        // Objects added in the cancelled transaction no longer exist; deleted ones are back
        // (their accessors stay invalidated, as in Realm).
        additions?.wasCancelled = true
        additions = nil
        advance(to: transaction.base)
    }

    /// Runs `block` in a write transaction and commits it, returning the block's value. If the
    /// block throws, the transaction is cancelled and the error rethrown.
    ///
    /// The change streams of `tokens` (which must observe this realm) do not report this
    /// write's changes.
    ///
    /// - Parameters:
    ///   - tokens: Streams (by their tokens) that do not report this write.
    ///   - block: The transaction's work.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws (nothing is stored then), or the error that failed the commit
    ///   (`duplicatePrimaryKey`, `diskFull`, ...); the file is then as it was.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try startWrite()
        prepareToSkip(tokens)
        let result: Result
        do {
            result = try block()
        } catch {
            if transaction != nil { cancelWrite() }
            throw error
        }
        if transaction != nil { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Drops the table writers classes keep for the transaction that just ended, and the values
    /// of the transaction's last add (`AddScratch.values`), which may be large.
    private func forgetTableWriters() {
        for info in classInfos.values { info.writer = nil }
        addScratch.values.removeAll(keepingCapacity: true)
    }

    // MARK: Confinement

    /// Stops unless called where this realm may be used (see `Confinement`).
    @inlinable @inline(__always)
    func checkThread() {
        if threadMismatch == 0 { return }
        checkConfinement()
    }

    /// Zero when this realm may be used on this thread without asking further: it is frozen
    /// (`fastThreadCheck` is `anyThread`, 0) or confined to this thread (it is this thread's
    /// pointer, never 0 or all ones). A stored integer compared, branch-free: no copy of the
    /// confinement (an enum that may hold an actor) and no call for the realms most reads go
    /// through.
    @inlinable @inline(__always)
    var threadMismatch: UInt {
        let owner = fastThreadCheck
        return min(owner, owner ^ asyncrealm_thread_pointer())
    }

    /// Whether a row read at `rowStamp` is the one this realm reads now and may be read here:
    /// `checkThread`'s fast cases and the stamp's comparison in one test, for the property
    /// reads of a scan. False does not mean the read is wrong: the caller then compares the
    /// stamp and calls `checkThread`, which decides.
    @inlinable @inline(__always)
    func isCurrentHere(rowStamp: Int) -> Bool {
        UInt(bitPattern: rowStamp ^ stamp) | threadMismatch == 0
    }

    /// `checkThread`'s slow path: a realm confined to an actor or a task.
    @usableFromInline
    func checkConfinement() {
        // Running on the actor's executor is being isolated to it: no need to ask the runtime.
        if let ownerExecutor, ExecutorIdentity.current == ownerExecutor { return }
        confinement.check()
    }

    private static func fastThreadCheck(for confinement: Confinement) -> UInt {
        switch confinement {
        // The owner's pointer can be read only on the owner, where a thread-confined realm is
        // opened; opened anywhere else, every check takes the slow path.
        case .thread(let owner): pthread_equal(owner, pthread_self()) != 0 ? asyncrealm_thread_pointer() : checkConfinement
        case .frozen: anyThread
        case .actor, .task: checkConfinement
        }
    }
}
