// The path an open descriptor names, for the shims to tell the benchmark's files apart.
#include <stdio.h>
#include <unistd.h>

// Writes the path of `fd` into `path` (of `size` bytes) and returns 1, or returns 0.
static int descriptorPath(int fd, char *path, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, size - 1);
    if (length < 0) return 0;
    path[length] = 0;
    return 1;
}
