import Foundation
import Testing
@testable import StorageEngine

/// The lock of the page cache (`ShortLocked`). Run under ThreadSanitizer by `.ci/run`, which
/// fails on any report: a lock that ordered nothing would be reported as a race here.
@Suite("Short lock")
struct ShortLockedTests {
    /// Runs `body(thread)` on `count` threads, started together, and waits for all of them.
    private static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        let arrived = Locked(0)
        for thread in 0..<count {
            done.enter()
            Thread {
                arrived.withLock { $0 += 1 }
                while arrived.withLock({ $0 }) < count { sched_yield() }
                body(thread)
                done.leave()
            }.start()
        }
        done.wait()
    }

    @Test("threads taking the lock at once never overlap: no update between a read and its write is lost")
    func excludes() {
        let counter = ShortLocked(0)
        let (threads, rounds) = (4, 20_000)
        Self.onThreads(threads) { _ in
            for round in 0..<rounds {
                counter.withLock { value in
                    let read = value
                    // Widens the window between the read and the write, where a lock that let
                    // two threads in would lose one's update.
                    if round % 64 == 0 { sched_yield() }
                    value = read + 1
                }
            }
        }
        #expect(counter.withLock { $0 } == threads * rounds)
    }

    @Test("readers descending through the page cache while a thread fills and evicts it read only what the pages hold")
    func pageCacheUnderConcurrentUse() {
        let cache = PageCache(capacityBytes: 256 * 1024)
        @Sendable func leaf(_ first: UInt64) -> Node {
            let keys = Array(first..<(first + 64))
            return .leaf(Leaf(keys: keys, ends: keys.indices.map { UInt32($0 + 1) * 8 }, bytes: keys.flatMap { key in withUnsafeBytes(of: key.littleEndian, Array.init) }))
        }
        @Sendable func ref(_ page: Int) -> PageRef { PageRef(offset: UInt64(page + 1) * 8192, length: 100, checksum: UInt64(page) &+ 7) }
        let pages = 200
        let wrong = ShortLocked(0)
        Self.onThreads(3) { thread in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
            defer { buffer.deallocate() }
            var generator = SystemRandomNumberGenerator()
            for round in 0..<20_000 {
                let page = Int.random(in: 0..<pages, using: &generator)
                if thread == 0 {
                    // Pages cost 4 KiB: 200 of them are three times the cache, so inserting
                    // evicts all along.
                    if cache.node(for: ref(page)) == nil { cache.insert(leaf(UInt64(page) * 64), for: ref(page), cost: 4096) }
                    continue
                }
                let key = UInt64(page) * 64 + UInt64(round % 64)
                if case .copied(let count) = cache.locate(key, from: ref(page), copyingInto: buffer),
                   count != 8 || buffer.load(as: UInt64.self) != key.littleEndian {
                    wrong.withLock { $0 += 1 }
                }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(cache.statistics.usedBytes <= 256 * 1024)
    }
}
