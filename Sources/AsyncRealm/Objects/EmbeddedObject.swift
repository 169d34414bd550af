/// An object that lives inside another, as RealmSwift's `EmbeddedObject`: the base class of
/// models that have no existence of their own.
///
///     class Address: EmbeddedObject {
///         @Persisted var street: String
///         @Persisted var city: String
///     }
///     class Contact: Object {
///         @Persisted var name: String
///         @Persisted var address: Address?          // owned by this contact
///         @Persisted var previous: List<Address>   // each owned by this contact
///     }
///
/// An embedded object is held by exactly one parent, through a link, a `List` or a `Map`
/// property, and has no primary key:
///
/// - it is added with its parent (assigning an unmanaged one to a managed parent's property
///   adds it), never on its own: `realm.add` and `realm.create` of an embedded class stop;
/// - deleting the parent deletes it, and so does replacing it (assigning another object or nil
///   to the link, removing it from the list or map);
/// - assigning one that already has a parent to another property fails the write transaction
///   with `invalidValue`: assign a new object (or an unmanaged copy) instead;
/// - queries reach it through its parent's key paths: `address.city == 'Porto'`.
open class EmbeddedObject: Object {}
