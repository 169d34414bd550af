/// The base class of every model.
///
///     final class Dog: Object {
///         @Persisted(indexed: true) var name: String
///         @Persisted var age: Int = 1
///         @Persisted var owner: Person?
///     }
///
/// Properties marked `@Persisted` are stored; other stored properties are ignored. Subclasses
/// need an initialiser without arguments (the one Swift synthesises is enough): the schema is
/// discovered by creating an instance and reflecting on it, once per class.
open class Object {
    public required init() {}

    /// The class name the schema uses for this type.
    public class var className: String { String(describing: self) }
}
