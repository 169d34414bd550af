import Dispatch

/// Epochs of logged commits, seen from the process's shared state of a file (see `LogEpoch`
/// and `Docs/RedoLog.md`).
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
                let created = try RedoLog.create(in: file, baseVersion: base.version, baseFingerprint: 0)
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
        guard let (log, records) = try RedoLog.open(file), !records.isEmpty else { return nil }
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

/// The timer that ends an epoch another process waits for.
///
/// `@unchecked Sendable`: the timer is only resumed once and cancelled, both thread-safe.
final class EpochWatcher: @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    /// How often the watcher looks: what another process opening the file may wait, plus a
    /// checkpoint.
    static let interval = DispatchTimeInterval.milliseconds(5)
    /// An epoch idle this long is checkpointed, so that the file on disk does not lag behind
    /// for long (a copy of it taken meanwhile misses what only the log holds).
    static let idleNanoseconds: UInt64 = 1_000_000_000

    init(timer: any DispatchSourceTimer) {
        self.timer = timer
    }

    func cancel() {
        timer.cancel()
    }
}
