// A function of the Swift runtime (libswiftCore, which every Swift program links) that Swift
// has no spelling for: retain `object` unless its deinit has begun, returning it, or return
// null. It is what loading a weak reference does, without the side table a weak reference gives
// its object (see `RealmHandleCache`).
void *swift_tryRetain(void *object);
