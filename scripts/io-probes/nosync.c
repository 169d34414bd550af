// LD_PRELOAD shim that makes fdatasync and fsync do nothing, so that a profile or a timing of
// realm-bench shows the CPU alone. Nothing is durable under it; see README.md.
//
//   gcc -O2 -shared -fPIC -o nosync.so nosync.c
//   LD_PRELOAD=./nosync.so perf record -g .build/release/realm-bench --only SimpleWrite
int fdatasync(int fd) { (void)fd; return 0; }
int fsync(int fd) { (void)fd; return 0; }
