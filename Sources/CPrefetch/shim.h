// A cache hint Swift has no spelling for: start loading the line holding `address`, for reading,
// without waiting for it. A lookup that knows where it will read next issues the load while it
// waits on another, so that two cache misses overlap instead of following each other.
static inline void asyncrealm_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
