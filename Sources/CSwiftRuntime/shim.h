// A function of the Swift runtime (libswiftCore, which every Swift program links) that Swift
// has no spelling for: retain `object` unless its deinit has begun, returning it, or return
// null. It is what loading a weak reference does, without the side table a weak reference gives
// its object (see `RealmHandleCache`).
void *swift_tryRetain(void *object);

#include <stddef.h>
#include <stdint.h>

// The executor a job runs on, as the Swift concurrency runtime records it: what
// `swift_task_getCurrentExecutor` returns (its `SerialExecutorRef`, two words), and what
// Swift's own isolation checks read first (see `ExecutorIdentity`).
typedef struct {
    const void *identity;
    uintptr_t implementation;
} asyncrealm_executor_ref;

// Exported by libswift_Concurrency, with the Swift calling convention.
__attribute__((swiftcall)) asyncrealm_executor_ref swift_task_getCurrentExecutor(void);

// Whether the current job runs isolated to `executor` (its own executor, or the main thread
// for the main actor's). With no flags (0) it answers false where `Actor.preconditionIsolated`
// would stop with the runtime's own message.
__attribute__((swiftcall)) _Bool swift_task_isCurrentExecutorWithFlags(asyncrealm_executor_ref executor, uint64_t flags);

// The task running now, null outside a task: what `withUnsafeCurrentTask` reads, without the
// counted reference and the generic closure around it.
__attribute__((swiftcall)) const void *swift_task_getCurrent(void);

// Counts and gives back a strong reference to a Swift heap object (a task, here: see
// `Realm.owningTask`), which Swift code cannot do to a task it only knows the address of.
void *swift_retain(void *object);
void swift_release(void *object);

// The runtime's counts of an object's strong, unowned and weak references, and the unowned and
// weak references themselves (a weak reference is one word of storage), through which
// `ReusableAccessor` checks once what the word below says.
size_t swift_retainCount(void *object);
size_t swift_unownedRetainCount(void *object);
size_t swift_weakRetainCount(void *object);
void *swift_unownedRetain(void *object);
void swift_unownedRelease(void *object);
void *swift_weakInit(void *reference, void *object);
void swift_weakDestroy(void *reference);

// The word after a Swift heap object's metadata pointer: its inline reference counts, or a
// pointer to its side table (Swift's `HeapObject` layout, the same on every 64-bit platform).
// Read atomically, as the runtime reads it; see `ReusableAccessor`, which reads it only to
// compare it with the word of an object the runtime said is held once.
static inline uintptr_t asyncrealm_reference_count_word(const void *object) {
    return __atomic_load_n((const uintptr_t *)object + 1, __ATOMIC_RELAXED);
}
