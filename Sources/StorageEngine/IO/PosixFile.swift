import CLinuxSyscalls
import Glibc

/// A `FileIO` over a POSIX file descriptor: `pread`, `pwrite` and `fdatasync`.
///
/// The file grows in chunks (at least 1 MiB, or an eighth of its size) so that a commit rarely
/// changes the file length; `fdatasync` then has no metadata to flush beyond the data itself.
package final class PosixFile: FileIO {
    package let path: String
    private let descriptor: Int32
    /// The physical length, tracked so that growth happens in chunks and not on every append.
    private let physicalLength: Locked<UInt64>
    /// A range `prepareForWriting` left without holes (nil after a truncation).
    private let preparedThrough = Locked<Range<UInt64>?>(nil)
    /// Whether the descriptor bypasses the page cache (`O_DIRECT`): every write must then
    /// start at a multiple of `directAlignment`, from memory aligned so, for a length that is
    /// a multiple of it (see `RedoLog`).
    let isDirect: Bool
    /// The device and inode the descriptor was opened on: what tells a file from the one a
    /// path names after it was deleted and created again.
    package let identity: (device: UInt64, inode: UInt64)

    package var alignment: Int { isDirect ? PosixFile.directAlignment : 1 }

    static let minimumGrowth: UInt64 = 1 << 20
    /// `SEEK_HOLE` (Linux), which Glibc's module does not export without `_GNU_SOURCE`.
    static let seekHole: Int32 = 4
    /// `O_DIRECT`, which Glibc's module does not export either; its value depends on the
    /// architecture.
    #if arch(arm64)
    static let directFlag: Int32 = 0o200000
    #else
    static let directFlag: Int32 = 0o40000
    #endif
    /// What direct writes align their offset, length and memory to: a page, which covers
    /// every logical block size Linux file systems use.
    static let directAlignment = 4096

    /// Opens (and with `create`, creates) the file at `path`.
    ///
    /// With `direct`, writes bypass the page cache when the file system allows it (tmpfs, for
    /// one, may not): `isDirect` says whether they do. A small synced write then costs the
    /// kernel less than a page-cache write and its writeback, which is what the redo log's
    /// commits are (see `RedoLog`).
    package init(path: String, create: Bool, readOnly: Bool, direct: Bool = false) throws {
        self.path = path
        var flags = readOnly ? O_RDONLY : O_RDWR
        if create && !readOnly { flags |= O_CREAT }
        flags |= O_CLOEXEC
        var fd = direct ? Glibc.open(path, flags | PosixFile.directFlag, 0o644) : -1
        isDirect = fd >= 0
        if fd < 0 { fd = Glibc.open(path, flags, 0o644) }
        guard fd >= 0 else { throw PosixFile.error(errno, "open '\(path)'") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw PosixFile.error(code, "stat '\(path)'")
        }
        descriptor = fd
        identity = (UInt64(info.st_dev), UInt64(info.st_ino))
        physicalLength = Locked(UInt64(info.st_size))
    }

    deinit {
        Glibc.close(descriptor)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        // A damaged reference may name any offset; one past what a file offset holds is past
        // the end of every file (converting it to `off_t` would stop the program).
        let (end, overflow) = offset.addingReportingOverflow(UInt64(buffer.count))
        guard !overflow, end <= UInt64(off_t.max) else {
            throw StorageError.corrupted("file '\(path)' ends before the \(buffer.count) bytes the engine expected", at: offset)
        }
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

    /// How many buffers one `pwritev` takes on Linux (`UIO_MAXIOV`, which glibc's `IOV_MAX`
    /// names but Swift does not import).
    private static let maximumVectors = 1024

    /// Writes `parts` with `pwritev`, at most `maximumVectors` at a time: the pages of a run are
    /// not copied into one buffer first.
    package func write(gathering parts: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        let total = parts.reduce(0) { $0 + $1.count }
        try growIfNeeded(to: offset + UInt64(total))
        var vectors = parts.filter { !$0.isEmpty }.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
        var first = 0
        var position = offset
        try vectors.withUnsafeMutableBufferPointer { vectors in
            while first < vectors.count {
                let count = min(vectors.count - first, PosixFile.maximumVectors)
                let written = pwritev(descriptor, vectors.baseAddress! + first, Int32(count), off_t(position))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw PosixFile.error(errno, "write \(total) bytes at offset \(offset) of '\(path)'")
                }
                guard written > 0 else {
                    throw StorageError(.ioError, "writing \(total) bytes at offset \(offset) of '\(path)' made no progress")
                }
                // A short write leaves the rest of a part, or whole parts, to the next call.
                var left = written
                position += UInt64(written)
                while left > 0 && first < vectors.count {
                    if left >= vectors[first].iov_len {
                        left -= vectors[first].iov_len
                        first += 1
                    } else {
                        vectors[first].iov_base = vectors[first].iov_base! + left
                        vectors[first].iov_len -= left
                        left = 0
                    }
                }
                while first < vectors.count && vectors[first].iov_len == 0 { first += 1 }
            }
        }
    }

    /// Whether `writeDurably` may use `pwritev2` with `RWF_DSYNC`: cleared the first time the
    /// kernel or the file system refuses the flag.
    private let durableWrites = Locked(true)

    /// One `pwritev2` with `RWF_DSYNC` where the system has it (see
    /// `asyncrealm_write_durably`); a write and an `fdatasync` otherwise, or to finish a short
    /// write.
    package func writeDurably(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        if durableWrites.withLock({ $0 }), offset + UInt64(bytes.count) <= physicalLength.withLock({ $0 }) {
            while true {
                let written = asyncrealm_write_durably(descriptor, bytes.baseAddress, Int64(bytes.count), Int64(offset))
                if written == Int64(bytes.count) { return }
                if written == -Int64(EINTR) { continue }
                if written == -Int64(EINVAL) || written == -Int64(EOPNOTSUPP) || written == -Int64(ENOSYS) {
                    durableWrites.withLock { $0 = false }
                } else if written < 0 {
                    throw PosixFile.error(Int32(-written), "write \(bytes.count) bytes at offset \(offset) of '\(path)'")
                }
                break
            }
        }
        try write(bytes, at: offset)
        try sync()
    }

    package func sync() throws {
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw PosixFile.error(errno, "sync '\(path)'") }
        }
    }

    /// Starts writeback of `range` (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`), which
    /// returns once the kernel has queued the pages, not when they are on the disk. Nothing
    /// depends on it: the commit's `sync` makes the bytes durable either way.
    package func startWriteback(_ range: Range<UInt64>) {
        _ = asyncrealm_start_writeback(descriptor, Int64(range.lowerBound), Int64(range.count))
    }

    /// The length, from `lseek` rather than `fstat`: on Linux with multigrain timestamps, a
    /// `stat` makes the next write stamp the file's mtime finely, which dirties the inode, and
    /// `fdatasync` on ext4 without a journal then writes the inode as well as the data. Asking
    /// for the size on every commit (to check the header) made every commit's sync do that.
    /// (The descriptor's offset moves; nothing uses it, every read and write is positioned.)
    package func size() throws -> UInt64 {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { throw PosixFile.error(errno, "find the length of '\(path)'") }
        return UInt64(end)
    }

    package func truncate(to length: UInt64) throws {
        try physicalLength.withLock { (current) in
            guard ftruncate(descriptor, off_t(length)) == 0 else {
                throw PosixFile.error(errno, "truncate '\(path)' to \(length) bytes")
            }
            current = length
        }
        preparedThrough.withLock { $0 = nil }
    }

    /// Writes zeros over the holes of `range`, growing the file first if needed.
    ///
    /// The file grows sparsely (`ftruncate`), and the first write into a hole makes the file
    /// system allocate blocks, which the next `fdatasync` must then flush as metadata too: on
    /// ext4 that made a small commit's sync about 1.5 times as slow as overwriting blocks
    /// already written (which is what a SQLite WAL does). Commits therefore zero the space just
    /// past the data ahead of time, so the commits after them overwrite written blocks.
    package func prepareForWriting(_ range: Range<UInt64>) throws {
        guard !range.isEmpty else { return }
        require(!isDirect || (range.lowerBound | range.upperBound) % UInt64(PosixFile.directAlignment) == 0,
                     "a direct file is prepared in whole blocks; align the range to PosixFile.directAlignment")
        // Space this handle already found or made hole-free needs no second look (a steady
        // stream of commits asks for nearly the same range each time). Another process
        // trimming the file can bring holes back unseen; that costs sync time, not safety.
        let known = preparedThrough.withLock { $0 }
        if let known, range.lowerBound >= known.lowerBound, range.upperBound <= known.upperBound { return }
        try growIfNeeded(to: range.upperBound)
        defer {
            preparedThrough.withLock { known in
                // Overlapping hole-free ranges make one.
                if let old = known, old.lowerBound <= range.upperBound, range.lowerBound <= old.upperBound {
                    known = min(old.lowerBound, range.lowerBound)..<max(old.upperBound, range.upperBound)
                } else {
                    known = range
                }
            }
        }
        let hole = lseek(descriptor, off_t(range.lowerBound), PosixFile.seekHole)
        // No hole before the range's end (or no SEEK_HOLE support): nothing to do.
        guard hole >= 0, UInt64(hole) < range.upperBound else { return }
        // Aligned memory, from an aligned offset within the range: what a direct descriptor
        // needs, given a range whose bounds are aligned.
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: PosixFile.directAlignment)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        let block = UInt64(PosixFile.directAlignment)
        var offset = max(range.lowerBound, UInt64(hole) / block * block)
        while offset < range.upperBound {
            let count = Int(min(UInt64(zeros.count), range.upperBound - offset))
            try write(UnsafeRawBufferPointer(rebasing: zeros[..<count]), at: offset)
            offset += UInt64(count)
        }
    }

    private func growIfNeeded(to end: UInt64) throws {
        try physicalLength.withLock { (current) in
            guard end > current else { return }
            // The cached length is this process's: another process may have grown the file
            // since, and written pages past it. Growing from the stale length would shrink the
            // file and cut those pages off, so look at the file before growing it.
            let actual = lseek(descriptor, 0, SEEK_END)
            guard actual >= 0 else { throw PosixFile.error(errno, "find the length of '\(path)'") }
            current = max(current, UInt64(actual))
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
