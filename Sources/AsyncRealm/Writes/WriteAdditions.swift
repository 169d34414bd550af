/// What the objects one write transaction added share: whether that transaction was cancelled.
/// Each such object holds it (`Object.__addedIn`) and reads as invalidated once it is set, so
/// `cancelWrite()` invalidates them without the realm keeping them.
///
/// So the realm keeps no added object: one the caller lets go of is freed when the add
/// returns, and its memory is reused by the next, rather than a bulk add holding every object
/// until the commit frees them all from cold memory.
final class WriteAdditions {
    var wasCancelled = false
}
