import Dispatch
import Glibc

/// Encodes and compresses the dirty leaves of a large commit on every core at once.
///
/// A commit turns each dirty leaf into its stored page (`NodeCodec.encode`, then LZ4 in
/// `PageCodec.encode`) before it allocates and writes anything (`MutableTree.prepareFlush`).
/// A bulk insert has hundreds of such leaves, whose compression would run on the committing
/// thread while the other cores wait. The leaves do not depend on each other, so they are
/// split between the cores here; the pages
/// are the same bytes whichever thread made them (`TreeTests.parallelLeafEncoding`).
/// Allocation, checksums and writes stay in order on the committing thread. A small commit
/// (the one-object write) stays on its thread: handing work to another costs more than a few
/// leaves take.
enum ParallelLeafEncoding {
    /// Fewer dirty leaves than this are encoded on the committing thread.
    static let minimumLeaves = 16
    /// The cores this process may run on.
    private static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The stored page of each leaf of `leaves` at `indices`, with the compression hint the
    /// leaf should carry (see `LeafCompression`), by index.
    static func encode(_ indices: [Int], of leaves: [Leaf]) -> [Int: (page: [UInt8], incompressibleSize: UInt32)] {
        var pages = [(page: [UInt8], incompressibleSize: UInt32)](repeating: ([], 0), count: indices.count)
        let workers = max(1, min(cores, indices.count / (minimumLeaves / 2)))
        pages.withUnsafeMutableBufferPointer { pages in
            let output = UnsafeSendablePages(base: pages.baseAddress.unsafelyUnwrapped)
            // Worker `w` takes leaves w, w + workers, ...: neighbouring leaves are about the same
            // size, so the workers finish together. Each writes only its own elements.
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var position = worker
                while position < indices.count {
                    output.base[position] = LeafCompression.page(for: leaves[indices[position]])
                    position += workers
                }
            }
        }
        var byIndex: [Int: (page: [UInt8], incompressibleSize: UInt32)] = [:]
        byIndex.reserveCapacity(indices.count)
        for (position, index) in indices.enumerated() { byIndex[index] = pages[position] }
        return byIndex
    }

    /// The output array's elements, each written by exactly one worker.
    private struct UnsafeSendablePages: @unchecked Sendable {
        let base: UnsafeMutablePointer<(page: [UInt8], incompressibleSize: UInt32)>
    }
}
