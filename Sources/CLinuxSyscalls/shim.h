// Linux system calls that glibc declares only under _GNU_SOURCE, or exposes only through
// syscall(2), a variadic function Swift cannot call. Each function returns 0 or a negated
// errno.
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

// Starts writeback of a written range without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE). Pages written ahead of a commit (EarlyPageWrites) start towards the
// disk this way, so that the commit's fdatasync finds them written.
static inline int asyncrealm_start_writeback(int descriptor, int64_t offset, int64_t count) {
    // SYNC_FILE_RANGE_WRITE is 2 in <linux/fs.h>'s ABI and glibc's <fcntl.h>.
    return syscall(SYS_sync_file_range, descriptor, offset, count, 2u) == 0 ? 0 : -errno;
}
