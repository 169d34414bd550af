// Linux's native asynchronous I/O (io_setup, io_submit, io_getevents), which glibc exposes
// only through syscall(2), a variadic function Swift cannot call. The redo log uses it to
// start a record's synced write and go on with the commit's work in memory while the disk
// works (see PosixFile.startDurableWrite). Each function returns 0 or a byte count, or a
// negated errno.
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef aio_context_t asyncrealm_aio_context;

static inline int asyncrealm_aio_setup(unsigned events, asyncrealm_aio_context *context) {
    *context = 0;
    return syscall(SYS_io_setup, events, context) == 0 ? 0 : -errno;
}

static inline void asyncrealm_aio_destroy(asyncrealm_aio_context context) {
    syscall(SYS_io_destroy, context);
}

// Queues a write of `count` bytes at `offset` that is durable when it completes (RWF_DSYNC:
// the written range and the device's cache are flushed, as fdatasync would).
static inline int asyncrealm_aio_submit_durable_write(
    asyncrealm_aio_context context, int descriptor, const void *bytes, size_t count, int64_t offset) {
    struct iocb block;
    memset(&block, 0, sizeof block);
    block.aio_fildes = (uint32_t)descriptor;
    block.aio_lio_opcode = IOCB_CMD_PWRITE;
    block.aio_buf = (uint64_t)(uintptr_t)bytes;
    block.aio_nbytes = count;
    block.aio_offset = offset;
    block.aio_rw_flags = RWF_DSYNC;
    struct iocb *blocks[1] = {&block};
    long submitted;
    do {
        submitted = syscall(SYS_io_submit, context, 1, blocks);
    } while (submitted < 0 && errno == EINTR);
    if (submitted < 0) return -errno;
    return submitted == 1 ? 0 : -EAGAIN;
}

// Waits for the one write in flight; returns the bytes it wrote or a negated errno.
static inline int64_t asyncrealm_aio_wait(asyncrealm_aio_context context) {
    struct io_event event;
    long got;
    do {
        got = syscall(SYS_io_getevents, context, 1, 1, &event, NULL);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return -errno;
    if (got != 1) return -EIO;
    return event.res;
}

// Starts writeback of a written range without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE), which glibc declares only under _GNU_SOURCE. Pages written ahead of
// a commit (EarlyPageWrites) start towards the disk this way, so that the commit's fdatasync
// finds them written. Returns 0 or a negated errno.
static inline int asyncrealm_start_writeback(int descriptor, int64_t offset, int64_t count) {
    // SYNC_FILE_RANGE_WRITE is 2 in <linux/fs.h>'s ABI and glibc's <fcntl.h>.
    return syscall(SYS_sync_file_range, descriptor, offset, count, 2u) == 0 ? 0 : -errno;
}
