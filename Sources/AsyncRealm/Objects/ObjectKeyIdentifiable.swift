/// An object (or projection) that is `Identifiable` by its realm's identity of it, as
/// RealmSwift's `ObjectKeyIdentifiable`: declare a model `final class Dog: Object,
/// ObjectKeyIdentifiable` and lists of dogs can be shown by identity without an `id` property
/// of the model's own.
///
/// A managed object's `id` is its key in its class, the same for every accessor of that object
/// (those `isSameObject(as:)` calls the same) and across versions; an unmanaged object's is its
/// address, and changes when the object is added to a realm. Objects of two classes may share
/// an `id`, as in RealmSwift.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The stable identity of the object.
    var id: UInt64 { get }
}

extension ObjectKeyIdentifiable where Self: Object {
    /// The object's key in its class when it is managed, its address when it is not.
    ///
    /// - Important: The object must not be invalidated (deleted, or read before its realm was
    ///   invalidated): check `isInvalidated` first.
    public var id: UInt64 { objectKeyIdentity }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The identity of the projected object (see `Object`'s `id`).
    public var id: UInt64 { rootObject.objectKeyIdentity }
}

extension Object {
    /// The key of the object when it is managed, its address when it is not: what
    /// `ObjectKeyIdentifiable.id` gives.
    var objectKeyIdentity: UInt64 {
        guard let managed else { return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())) }
        require(!isInvalidated, "this \(managed.info.schema.className) was deleted or invalidated, so it has no identity; check isInvalidated before reading its id")
        return managed.key
    }
}
