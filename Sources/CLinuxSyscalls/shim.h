// Linux system calls that glibc declares only under _GNU_SOURCE, or exposes only through
// syscall(2), a variadic function Swift cannot call. Each function returns 0 or a negated
// errno.
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

// Starts writeback of a written range without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE). Pages written ahead of a commit (EarlyPageWrites) start towards the
// disk this way, so that the commit's fdatasync finds them written.
static inline int asyncrealm_start_writeback(int descriptor, int64_t offset, int64_t count) {
    // SYNC_FILE_RANGE_WRITE is 2 in <linux/fs.h>'s ABI and glibc's <fcntl.h>.
    return syscall(SYS_sync_file_range, descriptor, offset, count, 2u) == 0 ? 0 : -errno;
}

// Writes `count` bytes at `offset` and returns once they are durable, as a write to a file
// opened with O_DSYNC would (pwritev2 with RWF_DSYNC): one system call instead of a write and
// an fdatasync, and on a descriptor opened with O_DIRECT, a device that supports it is sent
// one write marked to bypass its cache instead of a write and a flush. Returns the bytes
// written or a negated errno (EINVAL, EOPNOTSUPP or ENOSYS where the kernel or the file
// system lacks the flag).
static inline int64_t asyncrealm_write_durably(int descriptor, const void *bytes, int64_t count, int64_t offset) {
    struct iovec vector = { (void *)bytes, (size_t)count };
    // RWF_DSYNC is 2 in <linux/fs.h>'s ABI. On 64-bit kernels the offset is the low word.
    long written = syscall(SYS_pwritev2, descriptor, &vector, 1, (long)offset, (long)((uint64_t)offset >> 32), 2);
    return written >= 0 ? written : -errno;
}
