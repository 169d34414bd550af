// LD_PRELOAD shim that simulates a redo log for realm-bench: a sync of objects.realm becomes a
// 200-byte write into a separate, pre-written 1 MiB log file and a sync of that file, except
// every CHECKPOINT_EVERY-th (default 100), which syncs the database file as before. The
// database is NOT durable under it. It measures what a commit would cost if its durability came
// from a small log record; see README.md.
//
//   gcc -O2 -shared -fPIC -o logsync.so logsync.c -ldl
//   LD_PRELOAD=./logsync.so .build/release/realm-bench --only SimpleWrite
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "descriptor_path.h"

enum { logBytes = 1 << 20, recordBytes = 200 };
static int logDescriptor = -1;
static long syncs;
static off_t logOffset;

static int isRealmFile(int fd) {
    char path[512];
    return descriptorPath(fd, path, sizeof path) && strstr(path, "objects.realm") != NULL;
}

int fdatasync(int fd) {
    static int (*real)(int);
    static int checkpointEvery = -1;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (checkpointEvery < 0) {
        const char *setting = getenv("CHECKPOINT_EVERY");
        checkpointEvery = setting ? atoi(setting) : 100;
    }
    if (!isRealmFile(fd)) return real(fd);
    if (logDescriptor < 0) {
        // Written once in full, so that log writes overwrite allocated blocks, as a recycled
        // SQLite WAL's do.
        logDescriptor = open("/tmp/realm-bench-redo.log", O_RDWR | O_CREAT, 0644);
        static char zeros[65536];
        for (int i = 0; i < logBytes / (int)sizeof zeros; i++) pwrite(logDescriptor, zeros, sizeof zeros, (off_t)i * sizeof zeros);
        real(logDescriptor);
    }
    if (++syncs % checkpointEvery == 0) return real(fd);
    char record[recordBytes];
    memset(record, (int)syncs, sizeof record);
    pwrite(logDescriptor, record, sizeof record, logOffset);
    logOffset = (logOffset + recordBytes) % logBytes;
    return real(logDescriptor);
}
