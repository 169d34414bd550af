import Glibc
import Synchronization

/// A `FileIO` over a POSIX file descriptor: `pread`, `pwrite` and `fdatasync`.
///
/// The file grows in chunks (at least 1 MiB, or an eighth of its size) so that a commit rarely
/// changes the file length; `fdatasync` then has no metadata to flush beyond the data itself.
package final class PosixFile: FileIO {
    package let path: String
    private let descriptor: Int32
    /// The physical length, tracked so that growth happens in chunks and not on every append.
    private let physicalLength: Mutex<UInt64>

    private static let minimumGrowth: UInt64 = 1 << 20

    /// Opens (and with `create`, creates) the file at `path`.
    package init(path: String, create: Bool, readOnly: Bool) throws {
        self.path = path
        var flags = readOnly ? O_RDONLY : O_RDWR
        if create && !readOnly { flags |= O_CREAT }
        flags |= O_CLOEXEC
        let fd = Glibc.open(path, flags, 0o644)
        guard fd >= 0 else { throw PosixFile.error(errno, "open '\(path)'") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw PosixFile.error(code, "stat '\(path)'")
        }
        descriptor = fd
        physicalLength = Mutex(UInt64(info.st_size))
    }

    deinit { Glibc.close(descriptor) }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw PosixFile.error(errno, "read \(buffer.count) bytes at offset \(offset) of '\(path)'")
            }
            if count == 0 {
                throw StorageError.corrupted("file '\(path)' ends before the \(buffer.count) bytes the engine expected", at: offset)
            }
            done += count
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try growIfNeeded(to: offset + UInt64(bytes.count))
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw PosixFile.error(errno, "write \(bytes.count) bytes at offset \(offset) of '\(path)'")
            }
            done += count
        }
    }

    package func sync() throws {
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw PosixFile.error(errno, "sync '\(path)'") }
        }
    }

    package func size() throws -> UInt64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw PosixFile.error(errno, "stat '\(path)'") }
        return UInt64(info.st_size)
    }

    package func truncate(to length: UInt64) throws {
        try physicalLength.withLock { (current) in
            guard ftruncate(descriptor, off_t(length)) == 0 else {
                throw PosixFile.error(errno, "truncate '\(path)' to \(length) bytes")
            }
            current = length
        }
    }

    private func growIfNeeded(to end: UInt64) throws {
        try physicalLength.withLock { (current) in
            guard end > current else { return }
            let growth = max(PosixFile.minimumGrowth, current / 8)
            var target = max(end, current + growth)
            target = (target + PosixFile.minimumGrowth - 1) / PosixFile.minimumGrowth * PosixFile.minimumGrowth
            // ftruncate, not fallocate: a sparse tail is fine because every byte the engine reads
            // back was written first, and ENOSPC still surfaces from pwrite or fdatasync.
            guard ftruncate(descriptor, off_t(target)) == 0 else {
                throw PosixFile.error(errno, "grow '\(path)' to \(target) bytes")
            }
            current = target
        }
    }

    package static func error(_ code: Int32, _ what: String) -> StorageError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT: return StorageError(.diskFull, "cannot \(what): \(reason)")
        case ENOENT: return StorageError(.fileNotFound, "cannot \(what): \(reason)")
        case EACCES, EPERM, EROFS: return StorageError(.permissionDenied, "cannot \(what): \(reason)")
        default: return StorageError(.ioError, "cannot \(what): \(reason) (errno \(code))")
        }
    }
}
