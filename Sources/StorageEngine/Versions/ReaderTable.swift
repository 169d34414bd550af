import Glibc

/// The oldest version each process still reads, shared through `<file>.lock` so that a writer in
/// one process never reuses space a reader in another can see (invariant 2 across processes).
///
/// Layout of the lock file: byte 0 is the write lock; byte 1 the *open lock*, byte 2 the *wanted
/// lock* (below); from offset 4096, `capacity` slots of 8 bytes each hold `version + 1` of a
/// process's oldest pinned version (0 when it pins nothing). A process claims its slot with an
/// OFD lock on the slot's bytes, so a writer can tell a live slot from one left by a process
/// that died: the dead one is unlocked and ignored.
///
/// Every process with the file open holds the open lock shared. A process that keeps commits
/// in its redo log (see `LogEpoch`) holds it exclusively, which it can take only while no
/// other process has the file open: its logged versions exist in its memory and its log only,
/// so no other process may read the file meanwhile. A process that opens the file then holds
/// the wanted lock while it waits for the open lock, which tells the logging process to
/// checkpoint and share the file.
package final class ReaderTable: Sendable {
    private static let slotsStart = 4096
    private static let capacity = 256
    static let openByte = 1
    private static let wantedByte = 2

    private let descriptor: Int32
    private let slot: Int
    /// How long taking the open lock may wait for a process that logs (see `shareOpenLock`).
    let openTimeout: Duration

    package init(lockFilePath: String, openTimeout: Duration = ReaderTable.defaultOpenTimeout) throws {
        self.openTimeout = openTimeout
        descriptor = try FileLocks.openLockFile(lockFilePath)
        var claimed: Int?
        for candidate in 0..<ReaderTable.capacity {
            let start = ReaderTable.slotsStart + candidate * 8
            if try FileLocks.lock(descriptor, start: start, length: 8, wait: false) {
                claimed = candidate
                break
            }
        }
        guard let claimed else {
            Glibc.close(descriptor)
            throw StorageError(.ioError, "more than \(ReaderTable.capacity) processes have '\(lockFilePath)' open")
        }
        slot = claimed
        publish(nil)
        do {
            try shareOpenLock()
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit {
        publish(nil)
        Glibc.close(descriptor)
    }

    /// Takes the write lock through this table's descriptor if it is free (used when closing).
    func tryLockWriter() throws -> Bool {
        try FileLocks.lock(descriptor, start: 0, length: 1, wait: false)
    }

    func unlockWriter() {
        FileLocks.unlock(descriptor, start: 0, length: 1)
    }

    // MARK: The open lock

    /// How long opening waits for a process that keeps commits in its redo log, by default.
    static let defaultOpenTimeout = Duration.seconds(10)

    /// Takes the open lock shared, waiting (and saying so through the wanted lock) while a
    /// process that logs holds it exclusively; that process checkpoints and shares the file
    /// within milliseconds when it runs. One that does not run (stopped with SIGSTOP, or hung)
    /// would keep the opener waiting for ever: the wait ends after `openTimeout` with
    /// `timedOut`. (Polled, not blocked in `fcntl`: a blocked wait cannot be bounded.)
    func shareOpenLock() throws {
        if try FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, shared: true, wait: false) { return }
        _ = try FileLocks.lock(descriptor, start: ReaderTable.wantedByte, length: 1, shared: true, wait: true)
        defer { FileLocks.unlock(descriptor, start: ReaderTable.wantedByte, length: 1) }
        let clock = ContinuousClock()
        let deadline = clock.now + openTimeout
        var pause: UInt32 = 100
        while try !FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, shared: true, wait: false) {
            guard clock.now < deadline else { throw Self.timedOut(after: openTimeout) }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }

    static func timedOut(after timeout: Duration) -> StorageError {
        StorageError(.timedOut, "another process has kept this file to itself for \(timeout) without sharing it (it keeps commits in its redo log and does not run: stopped, or hung); resume or end it, or raise openTimeout")
    }

    /// Makes the open lock exclusive if no other process has the file open or waits to.
    func tryTakeOpenLockExclusively() throws -> Bool {
        guard !isWantedElsewhere else { return false }
        return try FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, wait: false)
    }

    /// Gives the open lock back for sharing, after `tryTakeOpenLockExclusively`.
    func downgradeOpenLock() {
        // Converting an exclusive lock of this descriptor to a shared one cannot conflict.
        _ = try? FileLocks.lock(descriptor, start: ReaderTable.openByte, length: 1, shared: true, wait: false)
    }

    /// Lets go of the open lock entirely (before waiting to take it exclusively).
    func releaseOpenLock() {
        FileLocks.unlock(descriptor, start: ReaderTable.openByte, length: 1)
    }

    /// Whether another process waits to open the file.
    var isWantedElsewhere: Bool {
        FileLocks.isHeldElsewhere(descriptor, start: ReaderTable.wantedByte, length: 1)
    }

    /// Records this process's oldest pinned version (nil: none).
    package func publish(_ version: UInt64?) {
        var value = (version.map { $0 + 1 } ?? 0).littleEndian
        _ = withUnsafeBytes(of: &value) { bytes in
            pwrite(descriptor, bytes.baseAddress, 8, off_t(ReaderTable.slotsStart + slot * 8))
        }
    }

    /// The oldest version any other live process has published.
    func oldestOfOtherProcesses() -> UInt64? {
        // On the stack: every write transaction asks, and a heap array of the table costs
        // more than reading it. In chunks of 1 KiB, the most Swift keeps on the stack; the
        // file ends after the highest slot ever taken, so one read usually sees all of it.
        let chunkSlots = 128
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: chunkSlots) { values in
            var oldest: UInt64?
            var first = 0
            while first < ReaderTable.capacity {
                let read = pread(descriptor, values.baseAddress, values.count * 8, off_t(ReaderTable.slotsStart + first * 8))
                guard read > 0 else { break }
                for position in 0..<(read / 8) where first + position != slot {
                    let index = first + position
                    let value = UInt64(littleEndian: values[position])
                    guard value != 0 else { continue }
                    let version = value - 1
                    if let current = oldest, current <= version { continue }
                    guard FileLocks.isHeldElsewhere(descriptor, start: ReaderTable.slotsStart + index * 8, length: 8) else { continue }
                    oldest = version
                }
                guard read == values.count * 8 else { break }
                first += chunkSlots
            }
            return oldest
        }
    }
}
