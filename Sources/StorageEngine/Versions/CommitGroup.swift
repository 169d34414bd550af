import Dispatch

/// Commits of one process made durable together: one header write and one sync for all of them.
///
/// A writer that knows another is waiting for the write lock (the in-process queue of async
/// writes does) commits *into the group*: its pages, catalog, free list and commit record are
/// written as usual, but neither the header nor the sync is; the next writer starts from the
/// group's newest version, still under the same write lock. Whoever ends the group (the last
/// writer, a writer that finds it at its size limit, or any other writer of the process that
/// wants the lock) writes the newest header into the slot beside the durable one and syncs
/// once, and every commit of the group becomes durable at that instant.
///
/// Crash safety is the single commit's argument stretched over the group (invariant 1): until
/// the header is written, the file's newest header is `durable`, whose pages nothing in the
/// group overwrote, because space freed in the group stays pending until the group is durable
/// (the durable version is the newest readers are given, so it bounds what `reclaim` frees);
/// and the group's header carries a commit record listing every page written since `durable`
/// that the new version references, so opening checks them all. Nothing of the group is
/// visible to readers, in this process or another, before it is durable: readers are given
/// `durable` until the group's header is written. Only the writers of the group, which build
/// on each other, see its versions, and each of them waits for the group before reporting
/// success.
struct CommitGroup {
    /// The newest header on disk, which a crash before the group's end falls back to.
    let durable: FileHeader
    /// The slot holding `durable`; the group's header goes into the other one.
    let durableSlot: Int
    /// The write lock the group holds, taken by the transaction that opened it.
    let lock: WriteLock
    /// The newest version of the group, written to no slot yet.
    var newest: FileHeader
    var catalog: Catalog
    var freeSpace: FreeSpace
    /// Pages written since `durable` that `newest` references.
    var pages: [PageRef]
    var commits = 1
    /// Set while a transaction of the group runs, or while the group's header is written, so
    /// that no one else starts either.
    var isBusy = false
    /// When the group last became idle (`DispatchTime` nanoseconds): a writer outside the group
    /// ends it only after a grace period, so that it does not cut the group between two of its
    /// writers on every hand-over.
    var idleSince = DispatchTime.now().uptimeNanoseconds
    /// Called with nil when the group is durable, or with the error that lost it.
    var waiters: [@Sendable ((any Error)?) -> Void]

    /// Groups end after this many commits, so that no writer waits behind an endless chain.
    static let maximumCommits = 32
    /// How long a group must sit idle before a writer outside it ends it: far longer than a
    /// hand-over between two of its writers, short enough to be no wait at all for the writer.
    static let graceNanoseconds: UInt64 = 1_000_000
}

/// What a writer that wants to join the process's commit group finds.
enum GroupAdmission {
    /// No group is open: take the write lock.
    case noGroup
    /// A transaction of the group runs, or the group is being written: try again shortly.
    case busy
    /// Joined: start from this version, under the group's lock.
    case joined(header: FileHeader, catalog: Catalog, freeSpace: FreeSpace, durableSlot: Int, pin: PinnedVersion)
}
