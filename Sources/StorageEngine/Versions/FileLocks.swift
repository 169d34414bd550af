import Glibc

/// Open-file-description locks (`F_OFD_*`): owned by an open file, not by a process, so two
/// descriptors opened by one process exclude each other exactly as two processes do, and the
/// kernel drops them when the descriptor closes or the process dies.
enum FileLocks {
    // From <fcntl.h> with _GNU_SOURCE; Glibc's Swift module does not export them.
    static let getLock: Int32 = 36    // F_OFD_GETLK
    static let setLock: Int32 = 37    // F_OFD_SETLK
    static let setLockWait: Int32 = 38  // F_OFD_SETLKW

    static func request(_ type: Int32, start: Int, length: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0
        return lock
    }

    /// Takes an exclusive lock on `[start, start + length)` (a shared one if `shared`), waiting
    /// if `wait`. Returns false when `wait` is false and someone else holds a conflicting lock.
    /// A lock this descriptor already holds on the range is converted, in either direction.
    static func lock(_ descriptor: Int32, start: Int, length: Int, shared: Bool = false, wait: Bool) throws -> Bool {
        var lock = request(shared ? F_RDLCK : F_WRLCK, start: start, length: length)
        while fcntl(descriptor, wait ? setLockWait : setLock, &lock) != 0 {
            switch errno {
            case EINTR: continue
            case EAGAIN where !wait, EACCES where !wait: return false
            default: throw PosixFile.error(errno, "lock bytes \(start)..<\(start + length) of a lock file")
            }
        }
        return true
    }

    static func unlock(_ descriptor: Int32, start: Int, length: Int) {
        var lock = request(F_UNLCK, start: start, length: length)
        _ = fcntl(descriptor, setLock, &lock)
    }

    /// Whether another open file description holds a lock overlapping the range.
    static func isHeldElsewhere(_ descriptor: Int32, start: Int, length: Int) -> Bool {
        var lock = request(F_WRLCK, start: start, length: length)
        guard fcntl(descriptor, getLock, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// Whether the lock file at `path` cannot be made or opened for writing because the file
    /// system is read-only or this process may not write there. (It is created if it can be,
    /// as opening does next; any other failure is left for that open to report.)
    static func lockFileIsUnwritable(_ path: String) -> Bool {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor < 0 else {
            Glibc.close(descriptor)
            return false
        }
        return [EROFS, EACCES, EPERM].contains(errno)
    }

    static func openLockFile(_ path: String) throws -> Int32 {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PosixFile.error(errno, "open lock file '\(path)'") }
        return descriptor
    }
}
