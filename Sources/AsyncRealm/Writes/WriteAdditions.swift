/// What the objects one write transaction added share: whether that transaction was cancelled.
/// Each such object holds it (`Object.__addedIn`) and reads as invalidated once it is set, so
/// `cancelWrite()` invalidates them without the realm keeping them.
///
/// The realm used to keep every added object until the transaction ended, to mark each one on
/// a cancel. A bulk add then held all of them (100,000 objects in `BatchWrite`) until the
/// commit, which freed them all at once: the allocator had no freed memory to reuse while
/// adding, and the commit walked cold memory to free them, a tenth of the workload's time.
/// Now an object the caller lets go of is freed when the add returns.
final class WriteAdditions {
    var wasCancelled = false
}
