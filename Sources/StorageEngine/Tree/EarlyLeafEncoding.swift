import Dispatch

/// Encodes the leaves a bulk append has filled on another core while the transaction goes on
/// adding rows, so that its commit finds them ready (`MutableTree.prepareFlush`).
///
/// Encoding and compressing the leaves of a bulk append at its commit overlaps none of that work
/// with the adds before it. A leaf the spine has left behind is full and, unless the same transaction changes it again,
/// final: its page can be made at once. The job keeps a copy of the leaf, which shares the
/// leaf's storage; a change to the leaf afterwards copies that storage first, so the commit
/// uses a result only for a leaf whose storage is still the copy's (`Leaf.sharesStorage`).
///
/// The jobs run in order on one queue of the process: a transaction that adds faster than its
/// leaves are encoded leaves the rest to the commit, which cancels the jobs not started. A job
/// takes `leavesPerJob` leaves: the queue's thread finishes a leaf faster than the adds fill
/// one and goes to sleep in between, and waking it for every leaf would cost a `futex` call in
/// `DispatchQueue.async` per leaf.
final class EarlyLeafEncoding {
    /// Full leaves a tree fills in one transaction before it hands them over: a small
    /// transaction's commit (or the redo log's, which encodes nothing) would only pay for them.
    static let minimumFilledLeaves = 4
    /// Full leaves a tree fills in one transaction before their pages are also written ahead
    /// (see `EarlyPageWrites`): 128 KiB of leaves, past what a commit may send to the redo log
    /// instead (`LogEpoch.largestRecord`), which would leave pages written for nothing.
    static let minimumLeavesWrittenAhead = 16
    /// Leaves handed over together, in one job.
    static let leavesPerJob = 8

    /// A leaf encoded: its page, or where the page was written ahead (the page is then empty).
    typealias Result = (leaf: Leaf, page: [UInt8], incompressibleSize: UInt32, writtenAt: PageRef?)

    /// The queue every job runs on (tests suspend it to hold jobs back).
    static let queue = DispatchQueue(label: "AsyncRealm.EarlyLeafEncoding", qos: .userInitiated)
    private let group = DispatchGroup()
    private let state = Locked((results: [Int: Result](), isCancelled: false))
    /// Leaves handed over and not yet in a job (the tree's thread's alone).
    private var batch: [(leaf: Leaf, index: Int, writes: EarlyPageWrites?)] = []

    /// Hands over `leaf`, the dirty leaf at `index` of its tree, to be encoded, and with
    /// `writes`, its page written ahead of the commit: in a job with the leaves handed over
    /// before it, once there are `leavesPerJob`.
    func submit(_ leaf: Leaf, at index: Int, writingTo writes: EarlyPageWrites?) {
        batch.append((leaf, index, writes))
        if batch.count >= EarlyLeafEncoding.leavesPerJob { startJob() }
    }

    private func startJob() {
        let leaves = batch
        batch.removeAll(keepingCapacity: true)
        EarlyLeafEncoding.queue.async(group: group) { [state] in
            for (leaf, index, writes) in leaves {
                guard !state.withLock({ $0.isCancelled }) else { return }
                let (page, hint) = LeafCompression.page(for: leaf)
                let result: Result = if let ref = writes?.place(page) { (leaf, [], hint, ref) } else { (leaf, page, hint, nil) }
                state.withLock { $0.results[index] = result }
            }
        }
    }

    /// Returns once every leaf handed over so far is encoded (for tests).
    func waitForSubmitted() {
        if !batch.isEmpty { startJob() }
        group.wait()
    }

    /// The leaves encoded so far, by index; the rest are left to the commit.
    func finish() -> [Int: Result] {
        cancel()
        group.wait()
        return state.withLock { $0.results }
    }

    /// Drops the leaves not yet encoded, without waiting for the one under way: the tree no
    /// longer has them (they were freed, or the transaction ended).
    func cancel() {
        batch.removeAll()
        state.withLock { $0.isCancelled = true }
    }
}

extension Leaf {
    /// Whether `other` is this leaf unchanged: the same storage for its keys, value ends and
    /// bytes (a changed copy has storage of its own).
    func sharesStorage(with other: Leaf) -> Bool {
        func same<Element>(_ first: [Element], _ second: [Element]) -> Bool {
            first.withUnsafeBufferPointer { first in
                second.withUnsafeBufferPointer { second in first.baseAddress == second.baseAddress && first.count == second.count }
            }
        }
        return same(keys, other.keys) && same(ends, other.ends) && same(bytes, other.bytes)
    }
}
