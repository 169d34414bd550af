/// What `PageCommit` wrote: every page of a new version but its header, which
/// `GroupedCommit` or `HeaderCommit` then makes durable.
struct WrittenVersion {
    let header: FileHeader
    let result: CommitResult
    /// The pages the version's commit record lists (with the group's earlier pages it uses).
    let pages: [PageRef]
    let freeList: PageRef
    /// Null when the pages were synced before the header instead.
    let commitRecord: PageRef
    let freeSpace: FreeSpace
    /// A checkpoint of its own writes the newest logged version under its number.
    let keepsVersion: Bool
    /// The epoch this commit is the checkpoint of, if one is open.
    let epoch: LogEpoch?
    /// Whether the commit joins the process's commit group rather than syncing its header.
    let joinsGroup: Bool
}
