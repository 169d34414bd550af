import Glibc

/// The lock that lets one writer at a time build a copy for a destination
/// (`Database.writeCopy(of:toPath:encryptionKey:)`): an open-file-description lock on
/// `<path>.copylock`, whose holder removes the file when done, so that no file is left beside
/// the copy. (Not `<path>.copying.lock`: that is the lock file of the copy being built.)
/// Writers in one process exclude each other as writers in two processes do, and the kernel
/// drops a crashed writer's lock.
enum CopyLock {
    static let suffix = ".copylock"

    /// Runs `body` holding the lock for copies to `path`, waiting for a writer holding it.
    static func withLock<T>(for path: String, _ body: () throws -> T) throws -> T {
        let lockPath = path + suffix
        while true {
            // Named after the copy: the lock file is ours, the path the caller's.
            let descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw PosixFile.error(errno, "write a copy to '\(path)'") }
            defer { Glibc.close(descriptor) }
            _ = try FileLocks.lock(descriptor, start: 0, length: 1, wait: true)
            // The writer before this one removed the file it locked as it finished, and a lock
            // on a file no longer at the path excludes nobody who opens the path anew.
            guard names(lockPath, descriptor) else { continue }
            defer { unlink(lockPath) }
            return try body()
        }
    }

    /// Runs `body` holding the lock for copies to `path` if no writer holds it, and returns its
    /// result; nil, running nothing, while a writer holds it or the lock file cannot be made.
    static func withLockIfFree<T>(for path: String, _ body: () throws -> T) throws -> T? {
        let lockPath = path + suffix
        let descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        guard try FileLocks.lock(descriptor, start: 0, length: 1, wait: false), names(lockPath, descriptor) else { return nil }
        defer { unlink(lockPath) }
        return try body()
    }

    /// Whether `path` names the file open at `descriptor`.
    private static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
