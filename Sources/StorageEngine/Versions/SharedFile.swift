import Dispatch
import Glibc

/// The state one process keeps for one database file, shared by every handle on it: the page
/// cache, the newest committed version it knows, and the versions its snapshots pin.
///
/// Pinning and publishing a new version happen under one lock, so a writer computing the oldest
/// pinned version never misses a reader that took the version it is about to free pages of.
package final class SharedFile: Sendable {
    struct Committed {
        var header: FileHeader
        /// The slot `header` was read from or written to: the next commit writes the other.
        var headerSlot = 0
        var catalog: Catalog
        /// The allocator state of `header.version`, kept by the last writer of this process.
        var freeSpace: FreeSpace?
        var pins: [UInt64: Int] = [:]
        var published: UInt64?
        var recentCommits: [CommitResult] = []
        /// Commits of this process not yet durable (see `CommitGroup`).
        var group: CommitGroup?
        /// How many groups of more than one commit became durable, and their commits.
        var groupStatistics = (groups: 0, commits: 0)
        /// Whether this process has an epoch of logged commits open (see `LogEpoch`): it
        /// holds the open lock exclusively, so no other process reads or writes the file.
        var isLogging = false

        /// Keeps `result` among the recent commits. The oldest are dropped a batch at a time,
        /// once twice `keptCommits` are kept: dropping one per commit would move the whole
        /// array down each time.
        mutating func remember(_ result: CommitResult) {
            recentCommits.append(result)
            if recentCommits.count > 2 * SharedFile.keptCommits {
                recentCommits.removeFirst(recentCommits.count - SharedFile.keptCommits)
            }
        }
    }

    /// The canonical path, or nil for an in-memory database.
    package let path: String?
    package let store: PageStore
    let readerTable: ReaderTable?
    /// The write lock of in-memory databases (file-backed ones lock `<file>.lock`).
    let memoryLock = DispatchSemaphore(value: 1)
    /// Excludes the writers of this process from each other, before the file's write lock,
    /// which excludes other processes (see `Database.tryBeginWrite`).
    let writers = DispatchSemaphore(value: 1)
    /// Everything about the committed versions, behind one lock that only `SharedFile` takes:
    /// the rest of the engine asks through the methods below.
    private let state: Locked<Committed>
    /// Whether small commits may go to the redo log (see `LogEpoch`): for files, unless the
    /// environment sets `ASYNCREALM_REDO_LOG=0` (for measuring without it).
    let logsCommits: Bool
    /// The open epoch of logged commits, if this process has one; changed under the write lock.
    let epoch: Locked<LogEpoch?> = Locked(nil)
    /// The redo log file, opened by the first epoch.
    let redoLog = Locked<RedoLog?>(nil)
    /// Nodes held in memory that no commit uses any more, waiting for their readers.
    let retiredHeldNodes = Locked(RetiredHeldNodes())
    /// Ends epochs that another process waits for, or that sat idle (see `watchEpoch`).
    let epochWatcher = Locked<EpochWatcher?>(nil)
    /// Set by the epoch's watcher: the next commit is a checkpoint, not a logged one.
    let checkpointRequested = Locked(false)
    /// When this process last committed, for ending idle epochs (`DispatchTime` nanoseconds).
    let lastCommitTime = Locked<UInt64>(0)
    /// How many `Database` handles of this process use the file.
    private let handles = Locked(0)
    /// The newest header whose commit is known complete, so it is checked only once.
    private let completeHeader = Locked<FileHeader?>(nil)

    /// How many commits' changesets are kept for observers, at least (see `Committed.remember`).
    static let keptCommits = 256

    init(file: any FileIO, path: String?, cacheBytes: Int, readerTable: ReaderTable?, cipher: FileCipher?) throws {
        self.path = path
        self.store = PageStore(file: file, cache: PageCache(capacityBytes: cacheBytes), cipher: cipher)
        self.readerTable = readerTable
        logsCommits = path != nil && readerTable != nil && getenv("ASYNCREALM_REDO_LOG").map { String(cString: $0) } != "0"
        state = Locked(Committed(header: .empty, catalog: Catalog()))
        let (header, slot) = try readHeader()
        let catalog = try Catalog.load(header.catalog, from: store)
        state.withLock {
            $0.header = header
            $0.headerSlot = slot
            $0.catalog = catalog
        }
    }

    deinit {
        epochWatcher.withLock { $0?.cancel() }
        // A group whose handles are all gone is still a set of commits its writers made.
        if let group = claimGroup() { try? commit(group) }
        closeCleanly()
    }

    /// Counts a new handle on the file.
    func registerHandle() {
        handles.withLock { $0 += 1 }
    }

    /// Counts a handle gone, and returns how many are left.
    func unregisterHandle() -> Int {
        handles.withLock { count in
            count -= 1
            return count
        }
    }

    /// The newest header on disk whose commit is complete, and its slot.
    func readHeader() throws -> (header: FileHeader, slot: Int) {
        try FileHeader.read(from: file, cipher: store.cipher) { header in
            if completeHeader.withLock({ $0 == header }) { return nil }
            if let missing = CommitRecord.missingPart(of: header, store: store) { return missing }
            markComplete(header)
            return nil
        }
    }

    /// Records that `header`'s commit is complete (its writer knows it is).
    func markComplete(_ header: FileHeader) {
        completeHeader.withLock { $0 = header }
    }

    /// When the last handle goes: if no one is writing, copy the newest header into the other
    /// slot as well, so damage to one slot at rest cannot roll the file back a version, and give
    /// the unused tail of the file back.
    private func closeCleanly() {
        let locked: Bool
        if let readerTable {
            locked = (try? readerTable.tryLockWriter()) ?? false
        } else {
            locked = memoryLock.wait(timeout: .now()) == .success
        }
        guard locked else { return }
        defer {
            if let readerTable { readerTable.unlockWriter() } else { memoryLock.signal() }
        }
        guard let (header, slot) = try? readHeader() else { return }
        try? header.write(to: file, slot: FileHeader.slot(replacingTheOneBeside: slot), cipher: store.cipher)
        if let size = try? file.size(), size > header.end { try? file.truncate(to: header.end) }
        try? file.sync()
    }

    package var file: any FileIO { store.file }

    /// Changesets of the commits after `version` that this process still remembers, oldest first.
    package func commits(after version: UInt64) -> [CommitResult] {
        state.withLock { $0.recentCommits.filter { $0.version > version } }
    }

    /// Adopts a version another process committed, if the file holds a newer one.
    func refreshFromDisk() throws {
        guard readerTable != nil, !state.withLock({ $0.isLogging }) else { return }
        let (header, slot) = try readHeader()
        let known = state.withLock { $0.header }
        guard header.version > known.version else { return }
        let catalog = try Catalog.load(header.catalog, from: store)
        state.withLock { committed in
            guard header.version > committed.header.version else { return }
            committed.header = header
            committed.headerSlot = slot
            committed.catalog = catalog
            committed.freeSpace = nil
        }
    }

    /// Pins the newest version this process knows of, without reading the file. That is the
    /// newest version while the caller holds the write lock (no one else can commit), and the
    /// version just committed right after a commit, before the lock is released.
    func pinKnownLatest() -> (FileHeader, Catalog, PinnedVersion) {
        let (header, catalog) = state.withLock { committed in
            pinNewest(&committed)
            return (committed.header, committed.catalog)
        }
        return (header, catalog, PinnedVersion(version: header.version, file: self))
    }

    /// Makes a commit's version, which only this process holds (a logged commit's), the newest
    /// this process knows, and with `pinning` pins it for the committer, under one lock.
    func publish(_ result: CommitResult, header: FileHeader, catalog: Catalog, freeSpace: FreeSpace, pinning: Bool) -> PinnedVersion? {
        state.withLock { committed in
            committed.remember(result)
            committed.header = header
            committed.catalog = catalog
            committed.freeSpace = freeSpace
            if pinning { pinNewest(&committed) }
        }
        return pinning ? PinnedVersion(version: header.version, file: self) : nil
    }

    private func pinNewest(_ committed: inout Committed) {
        committed.pins[committed.header.version, default: 0] += 1
        publishOldest(&committed)
    }

    /// Pins the newest version and returns it.
    func pinLatest() throws -> (FileHeader, Catalog, PinnedVersion) {
        while true {
            try refreshFromDisk()
            let (header, catalog, pin) = pinKnownLatest()
            // Another process may have scanned the reader table before our pin was published
            // and freed pages of this version since. If the file still holds this version as
            // its newest, no later commit exists, so nothing this version uses was freed.
            // While this process logs, no other process has the file open, and the version
            // may be one only the redo log holds.
            guard readerTable != nil, !state.withLock({ $0.isLogging }), try readHeader().header.version != header.version else {
                return (header, catalog, pin)
            }
        }
    }

    // MARK: Commit groups

    /// Whether commits of this process wait for a group's header.
    var hasOpenGroup: Bool { state.withLock { $0.group != nil } }

    /// Lets a writer of this process start from the open group's newest version.
    func joinGroup() -> GroupAdmission {
        let admission = state.withLock { committed -> (FileHeader, Catalog, FreeSpace, Int)? in
            guard var group = committed.group else { return nil }
            guard !group.isBusy else { return (group.newest, group.catalog, group.freeSpace, -1) }
            group.isBusy = true
            committed.group = group
            committed.pins[group.newest.version, default: 0] += 1
            publishOldest(&committed)
            return (group.newest, group.catalog, group.freeSpace, group.durableSlot)
        }
        guard let (header, catalog, freeSpace, slot) = admission else { return .noGroup }
        guard slot >= 0 else { return .busy }
        return .joined(header: header, catalog: catalog, freeSpace: freeSpace, durableSlot: slot,
                       pin: PinnedVersion(version: header.version, file: self))
    }

    /// Adds a commit to the group, opening it if `opening` describes the version it starts
    /// from (the commit's transaction took the write lock itself), and returns its pin.
    func addToGroup(
        opening: (durable: FileHeader, slot: Int, lock: WriteLock)?, newest: FileHeader, catalog: Catalog,
        freeSpace: FreeSpace, pages: [PageRef], waiter: @escaping @Sendable ((any Error)?) -> Void
    ) -> PinnedVersion {
        state.withLock { committed in
            if let opening {
                require(committed.group == nil, "a commit group was opened twice")
                committed.group = CommitGroup(
                    durable: opening.durable, durableSlot: opening.slot, lock: opening.lock, newest: newest,
                    catalog: catalog, freeSpace: freeSpace, pages: pages, waiters: [waiter])
            } else {
                require(committed.group?.isBusy == true, "a commit joined a group it was not admitted to")
                committed.group!.newest = newest
                committed.group!.catalog = catalog
                committed.group!.freeSpace = freeSpace
                committed.group!.pages = pages
                committed.group!.commits += 1
                committed.group!.waiters.append(waiter)
                committed.group!.isBusy = false
                committed.group!.idleSince = DispatchTime.now().uptimeNanoseconds
            }
            committed.pins[newest.version, default: 0] += 1
            publishOldest(&committed)
        }
        return PinnedVersion(version: newest.version, file: self)
    }

    /// Calls `waiter` when the open group is durable, or now if none is open.
    func waitForGroup(_ waiter: @escaping @Sendable ((any Error)?) -> Void) {
        let added = state.withLock { committed -> Bool in
            guard committed.group != nil else { return false }
            committed.group!.waiters.append(waiter)
            return true
        }
        if !added { waiter(nil) }
    }

    /// Ends a joined transaction that added nothing to the group.
    func leaveGroup() {
        state.withLock { committed in
            committed.group?.isBusy = false
            committed.group?.idleSince = DispatchTime.now().uptimeNanoseconds
        }
    }

    /// Takes the group for writing its header, if one is open and has been idle for at least
    /// `idleNanoseconds`.
    func claimGroup(idleNanoseconds: UInt64 = 0) -> CommitGroup? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { committed in
            guard let group = committed.group, !group.isBusy, now >= group.idleSince + idleNanoseconds else { return nil }
            committed.group!.isBusy = true
            return group
        }
    }

    /// Publishes `header`, just made durable in `slot`, as the newest version, ending the
    /// group if one is open. Returns the group's waiters.
    func publishDurable(_ header: FileHeader, slot: Int, catalog: Catalog, freeSpace: FreeSpace) -> [@Sendable ((any Error)?) -> Void] {
        markComplete(header)
        return state.withLock { committed in
            committed.header = header
            committed.headerSlot = slot
            committed.catalog = catalog
            committed.freeSpace = freeSpace
            defer { committed.group = nil }
            if let group = committed.group, group.commits > 1 {
                committed.groupStatistics.groups += 1
                committed.groupStatistics.commits += group.commits
            }
            return committed.group?.waiters ?? []
        }
    }

    /// Writes the header of `group`, claimed by the caller, into the slot beside its durable
    /// one and syncs; then publishes it, releases the group's lock and tells its writers.
    ///
    /// - Throws: the I/O error that lost the group; its writers are told the same.
    func commit(_ group: CommitGroup) throws {
        let slot = FileHeader.slot(replacingTheOneBeside: group.durableSlot)
        do {
            try group.newest.write(to: file, slot: slot, cipher: store.cipher)
            try file.sync()
        } catch {
            try? FileHeader.erase(slot: slot, of: file)
            let waiters = abandonGroup()
            group.lock.unlock()
            for waiter in waiters { waiter(error) }
            throw error
        }
        let waiters = publishDurable(group.newest, slot: slot, catalog: group.catalog, freeSpace: group.freeSpace)
        group.lock.unlock()
        for waiter in waiters { waiter(nil) }
    }

    /// Forgets the group after its header could not be made durable: the file's newest
    /// version is still the group's durable one. Returns the group's waiters.
    func abandonGroup() -> [@Sendable ((any Error)?) -> Void] {
        state.withLock { committed in
            guard let group = committed.group else { return [] }
            committed.group = nil
            committed.freeSpace = nil
            committed.recentCommits.removeAll { $0.version > group.durable.version }
            return group.waiters
        }
    }

    func unpin(_ version: UInt64) {
        state.withLock { committed in
            guard let count = committed.pins[version] else { return }
            committed.pins[version] = count > 1 ? count - 1 : nil
            publishOldest(&committed)
        }
    }

    /// The oldest version any snapshot, in this process or another, may still read.
    private func oldestPinned(_ committed: Committed) -> UInt64 {
        var oldest = committed.header.version
        if let local = committed.pins.keys.min() { oldest = min(oldest, local) }
        if !committed.isLogging, let remote = readerTable?.oldestOfOtherProcesses() { oldest = min(oldest, remote) }
        return oldest
    }

    private func publishOldest(_ committed: inout Committed) {
        // While this process logs, no other process reads the table; `endEpoch` publishes.
        guard let readerTable, !committed.isLogging else { return }
        let oldest = committed.pins.keys.min()
        if oldest != committed.published {
            committed.published = oldest
            readerTable.publish(oldest)
        }
    }
}

/// Keeps one version of a file readable while alive (invariant 2): space that version can see
/// is not reused until every `PinnedVersion` of it is gone.
package final class PinnedVersion: Sendable {
    package let version: UInt64
    private let file: SharedFile

    init(version: UInt64, file: SharedFile) {
        self.version = version
        self.file = file
    }

    deinit { file.unpin(version) }
}

// MARK: What the rest of the engine reads and records

extension SharedFile {
    /// The newest header this process knows.
    var knownHeader: FileHeader { state.withLock { $0.header } }

    /// The newest header this process knows, the slot it is in, and the allocator state of its
    /// version if a writer of this process kept it: read together, as the next commit needs.
    var knownHeaderWithSlot: (header: FileHeader, slot: Int, freeSpace: FreeSpace?) {
        state.withLock { ($0.header, $0.headerSlot, $0.freeSpace) }
    }

    /// Whether this process has an epoch of logged commits open (see `LogEpoch`).
    var isLogging: Bool { state.withLock { $0.isLogging } }

    /// The oldest version a snapshot of this process pins (or the newest, with none pinned).
    var oldestPinnedVersion: UInt64 { state.withLock { oldestPinned($0) } }

    /// How many commit groups of more than one commit became durable, and their commits.
    var groupStatistics: (groups: Int, commits: Int) { state.withLock { $0.groupStatistics } }

    /// How many distinct versions snapshots of this process pin.
    var pinnedVersionCount: Int { state.withLock { $0.pins.count } }

    /// The pages the open commit group has written so far; none without a group.
    var groupPages: [PageRef] { state.withLock { $0.group?.pages ?? [] } }

    /// Whether one more commit fills the open commit group, which must then become durable.
    var groupIsFull: Bool { state.withLock { ($0.group?.commits ?? 0) + 1 >= CommitGroup.maximumCommits } }

    /// The write lock the open commit group holds, if one is open.
    var groupLock: WriteLock? { state.withLock { $0.group?.lock } }

    /// Keeps the changeset of a commit for observers, before its header is written.
    func remember(_ result: CommitResult) {
        state.withLock { $0.remember(result) }
    }

    /// Drops what `remember` kept of a commit that failed.
    func forgetCommit(version: UInt64) {
        state.withLock { $0.recentCommits.removeAll { $0.version == version } }
    }
}

/// Epochs of logged commits, seen from the process's shared state of a file (see `LogEpoch`
/// and `Docs/Internals/RedoLog.md`).
extension SharedFile {
    /// Opens an epoch whose logged commits follow `base`, the file's newest durable header, if
    /// this process may log: it can take the open lock exclusively (no other process has the
    /// file open or waits to). The caller holds the write lock and appends the epoch's first
    /// record next; that record's sync makes the log's new header durable with it.
    func beginEpoch(base: FileHeader) throws -> LogEpoch? {
        guard logsCommits, let readerTable, let path else { return nil }
        guard try readerTable.tryTakeOpenLockExclusively() else { return nil }
        do {
            let log = try redoLog.withLock { log in
                if let log { return log }
                let file = try PosixFile(path: path + ".log", create: true, readOnly: false, direct: true)
                let created = try RedoLog.create(in: file, baseVersion: base.version, baseFingerprint: 0, cipher: store.cipher)
                log = created
                return created
            }
            try log.startGeneration(
                baseVersion: base.version, baseFingerprint: LogEpoch.fingerprint(of: base), sync: false)
            let epoch = LogEpoch(log: log, checkpoint: base)
            self.epoch.withLock { $0 = epoch }
            state.withLock { $0.isLogging = true }
            watchEpoch()
            return epoch
        } catch {
            readerTable.downgradeOpenLock()
            throw error
        }
    }

    /// Ends the epoch once its checkpoint is durable: the file holds every logged version, so
    /// other processes may open it again.
    func endEpoch() {
        checkpointRequested.withLock { $0 = false }
        state.withLock { committed in
            committed.isLogging = false
            publishOldest(&committed)
        }
        epoch.withLock { $0 = nil }
        epochWatcher.withLock { watcher in
            watcher?.cancel()
            watcher = nil
        }
        readerTable?.downgradeOpenLock()
    }

    /// The records of the redo log that follow the file's newest version: commits a process
    /// made durable in its log and ended before checkpointing (it crashed). Nil when there are
    /// none: no log, a log of an older checkpoint or of another file, or no records.
    func unappliedLogRecords() throws -> [RedoLog.Record]? {
        guard let path else { return nil }
        let file: PosixFile
        do {
            file = try PosixFile(path: path + ".log", create: false, readOnly: true)
        } catch let error as StorageError where error.code == .fileNotFound {
            return nil
        }
        guard let (log, records) = try RedoLog.open(file, cipher: store.cipher), !records.isEmpty else { return nil }
        let (header, _) = try readHeader()
        guard log.baseVersion == header.version, log.baseFingerprint == LogEpoch.fingerprint(of: header) else {
            return nil
        }
        return records
    }

    /// Releases the held nodes no pinned version reaches any more.
    func releaseRetiredHeldNodes() {
        let oldest = state.withLock { oldestPinned($0) }
        retiredHeldNodes.withLock { $0.release(oldestPinned: oldest, store: store) }
    }

    /// Checks every few milliseconds whether another process waits to open the file, or the
    /// epoch has been idle for `EpochWatcher.idleNanoseconds`, and checkpoints if so.
    private func watchEpoch() {
        // A queue of its own, which libdispatch serves from its overcommitting threads: the
        // shared pool may be taken by tasks that wait, in this process, for the very process
        // that waits for this checkpoint (a test waiting for a child that opens the file).
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "AsyncRealm.EpochWatcher"))
        timer.schedule(deadline: .now() + EpochWatcher.interval, repeating: EpochWatcher.interval, leeway: EpochWatcher.interval)
        timer.setEventHandler { [weak self] in
            guard let self, epoch.withLock({ $0 != nil }) else { return }
            // A commit may stamp its time between the two readings.
            let now = DispatchTime.now().uptimeNanoseconds, last = lastCommitTime.withLock { $0 }
            let idle = now > last ? now - last : 0
            guard readerTable?.isWantedElsewhere == true || idle >= EpochWatcher.idleNanoseconds else { return }
            // The next commit checkpoints instead of logging; if none is under way, this does.
            // (Waiting for the writer lock here would lose every race to a writer committing in
            // a loop, and the waiting process with it.)
            checkpointRequested.withLock { $0 = true }
            try? Database.checkpointLog(of: self, waiting: false)
        }
        timer.resume()
        epochWatcher.withLock { $0 = EpochWatcher(timer: timer) }
    }
}
