import Dispatch
import Glibc

/// The single-writer lock of one database handle (invariant 5).
///
/// For a file it is an OFD lock on byte 0 of `<file>.lock`, taken through a descriptor this
/// handle alone owns: two handles in one process exclude each other as two processes do, and a
/// writer that dies releases the lock with its descriptor. In-memory databases have no file to
/// lock; their handles share a semaphore.
package final class WriteLock: Sendable {
    private enum Mechanism: Sendable {
        case file(descriptor: Int32)
        case semaphore(DispatchSemaphore)
    }

    private let mechanism: Mechanism

    package init(lockFilePath: String) throws {
        mechanism = .file(descriptor: try FileLocks.openLockFile(lockFilePath))
    }

    package init(sharing semaphore: DispatchSemaphore) {
        mechanism = .semaphore(semaphore)
    }

    deinit {
        if case .file(let descriptor) = mechanism { Glibc.close(descriptor) }
    }

    /// Blocks until this handle holds the write lock.
    package func lock() throws {
        switch mechanism {
        case .file(let descriptor): _ = try FileLocks.lock(descriptor, start: 0, length: 1, wait: true)
        case .semaphore(let semaphore): semaphore.wait()
        }
    }

    /// Takes the lock if it is free; never waits.
    func tryLock() throws -> Bool {
        switch mechanism {
        case .file(let descriptor): return try FileLocks.lock(descriptor, start: 0, length: 1, wait: false)
        case .semaphore(let semaphore): return semaphore.wait(timeout: .now()) == .success
        }
    }

    func unlock() {
        switch mechanism {
        case .file(let descriptor): FileLocks.unlock(descriptor, start: 0, length: 1)
        case .semaphore(let semaphore): semaphore.signal()
        }
    }
}
