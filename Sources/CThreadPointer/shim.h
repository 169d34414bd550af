// The calling thread's thread pointer (the base of its thread control block), read in place:
// what `Realm.checkThread` compares on every property read, where pthread_self() was a call
// through the PLT. A thread's pointer is fixed for its life and unique among live threads, as
// its pthread_t is (on x86-64 with glibc the two are equal).
#include <stdint.h>

static inline uintptr_t asyncrealm_thread_pointer(void) {
    return (uintptr_t)__builtin_thread_pointer();
}
