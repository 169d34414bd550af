import StorageEngine

/// An observer whose elements are another's, transformed: what a projection's streams are, the
/// streams of the objects and results they project with their elements told in the
/// projection's terms.
final class MappedObserver<Inner: ChangeObserver, Element>: ChangeObserver {
    private let inner: Inner
    private let transform: (Inner.Element) -> Element?

    init(_ inner: Inner, transform: @escaping (Inner.Element) -> Element?) {
        self.inner = inner
        self.transform = transform
    }

    var hasInitial: Bool { inner.hasInitial }
    var isFinished: Bool { inner.isFinished }

    func initial() -> Element? {
        inner.initial().flatMap(transform)
    }

    func update(_ changes: Changeset, from old: Snapshot, to new: Snapshot) -> Element? {
        inner.update(changes, from: old, to: new).flatMap(transform)
    }

    func rebase() {
        inner.rebase()
    }
}
