// LD_PRELOAD shim that times every fdatasync/fsync of realm-bench, by file, and the time
// between two syncs of the same file (the CPU a commit spends outside its sync). It prints
// percentiles and means to stderr when the process exits. For measuring only; see README.md.
//
// SYNC_STANDIN=sleep or SYNC_STANDIN=spin replaces every sync by 250 µs of sleeping or of
// spinning, SYNC_STANDIN=none by nothing (nothing is durable then), to see what waiting alone
// does to the time between.
//
//   gcc -O2 -shared -fPIC -o synctime.so synctime.c -ldl
//   LD_PRELOAD=./synctime.so .build/release/realm-bench --only SimpleWrite
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "descriptor_path.h"

enum { maximumSamples = 200000, kinds = 8 };
static const char *kindNames[kinds] = {"other", "objects.realm", "objects.sqlite-wal", "objects.sqlite", "redo log (logsync.c)", "objects.realm.log"};

static double durations[maximumSamples];
static double gaps[maximumSamples];
static int sampleKinds[maximumSamples];
static int sampleCount;
static double lastEnd[kinds];
static pthread_mutex_t samplesLock = PTHREAD_MUTEX_INITIALIZER;

static double microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

static int kindOf(int fd) {
    char path[512];
    if (!descriptorPath(fd, path, sizeof path)) return 0;
    if (strstr(path, "realm-bench-redo.log")) return 4;
    if (strstr(path, "objects.realm.log")) return 5;
    if (strstr(path, "objects.realm")) return 1;
    if (strstr(path, "objects.sqlite-wal")) return 2;
    if (strstr(path, "objects.sqlite")) return 3;
    return 0;
}

static int standIn(int (*real)(int), int fd) {
    static const char *mode;
    static int modeRead;
    if (!modeRead) { mode = getenv("SYNC_STANDIN"); modeRead = 1; }
    if (!mode) return real(fd);
    if (mode[0] == 'n') return 0;
    if (mode[0] == 's' && mode[1] == 'l') {
        usleep(250);
    } else {
        double end = microseconds() + 250;
        while (microseconds() < end) {}
    }
    return 0;
}

static int timed(int (*real)(int), int fd) {
    int kind = kindOf(fd);
    double start = microseconds();
    int result = standIn(real, fd);
    double end = microseconds();
    pthread_mutex_lock(&samplesLock);
    if (sampleCount < maximumSamples) {
        durations[sampleCount] = end - start;
        gaps[sampleCount] = lastEnd[kind] > 0 ? start - lastEnd[kind] : 1e9;
        sampleKinds[sampleCount] = kind;
        sampleCount++;
    }
    lastEnd[kind] = end;
    pthread_mutex_unlock(&samplesLock);
    return result;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    return timed(real, fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return timed(real, fd);
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void summarize(const char *what, const char *name, double *values, int count) {
    if (count < 10) return;
    double sum = 0;
    for (int i = 0; i < count; i++) sum += values[i];
    qsort(values, count, sizeof *values, ascending);
    fprintf(stderr, "synctime %-22s %-34s n %6d p10 %5.0f p50 %5.0f p90 %5.0f mean %5.0f us\n",
            name, what, count, values[count / 10], values[count / 2], values[9 * count / 10], sum / count);
}

__attribute__((destructor)) static void report(void) {
    double *values = malloc(sizeof(double) * (sampleCount + 1));
    for (int kind = 0; kind < kinds; kind++) {
        if (!kindNames[kind]) continue;
        int count = 0;
        for (int i = 0; i < sampleCount; i++) if (sampleKinds[i] == kind) values[count++] = durations[i];
        summarize("sync", kindNames[kind], values, count);
        // Gaps over 5 ms are pauses between workloads, not a commit's CPU.
        count = 0;
        for (int i = 0; i < sampleCount; i++) if (sampleKinds[i] == kind && gaps[i] < 5000) values[count++] = gaps[i];
        summarize("between syncs (under 5 ms)", kindNames[kind], values, count);
    }
    free(values);
}
