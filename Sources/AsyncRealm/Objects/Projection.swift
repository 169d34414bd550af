/// A read view of an object, as RealmSwift's `Projection`: a class of `@Projected` properties,
/// each a key path into the object it projects.
///
///     final class PersonView: Projection<Person> {
///         @Projected(\Person.name) var name
///         @Projected(\Person.address?.city) var city
///         @Projected(\Person.dogs) var dogs
///     }
///     let people = realm.objects(PersonView.self)        // ProjectedResults<PersonView>
///     print(people.first?.city ?? "-")
///
/// A projection is live: it reads its object whenever a property is read, so it shows every
/// change. Its `changes` stream reports changes to the projected properties only, under the
/// projection's property names. A projected property whose key path is writable can be set, in
/// a write transaction, which sets the object's property.
open class Projection<Root: Object>: ThreadConfined, Hashable, CustomStringConvertible {
    /// The object projected.
    public let rootObject: Root

    /// A projection of `object`.
    ///
    /// - Parameter object: The object to project, managed or not.
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// The realm managing the projected object, or nil if it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the projected object was deleted or its realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    public var _confinedDescription: _ConfinedDescription { rootObject._confinedDescription }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> Self? {
        Root._resolve(description, in: realm).map { Self(projecting: $0) }
    }

    /// Whether two projections project the same object (the same instance, or the same stored
    /// object).
    ///
    /// - Parameters:
    ///   - left: A projection.
    ///   - right: Another projection of the same class.
    /// - Returns: True if their projected objects are equal.
    public static func == (left: Projection, right: Projection) -> Bool {
        left.rootObject == right.rootObject
    }

    /// Hashes the projected object, as `==` compares it.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// The projection's class and each projected property with its value, one per line.
    public var description: String {
        let properties = projectedProperties.map { "\($0.name) = \(self[projected: $0.name] ?? "nil")" }
        return "\(Self.self) {\n" + properties.map { "    " + $0 }.joined(separator: "\n") + "\n}"
    }

    /// The projected properties, in declaration order: the projection's name for each and the
    /// key path it reads.
    var projectedProperties: [(name: String, keyPath: PartialKeyPath<Root>)] {
        var properties: [(String, PartialKeyPath<Root>)] = []
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            let own = current.children.compactMap { child -> (String, PartialKeyPath<Root>)? in
                guard let label = child.label, label.hasPrefix("_"), let projected = child.value as? any AnyProjected<Root> else { return nil }
                return (String(label.dropFirst()), projected.projectedKeyPath)
            }
            properties.insert(contentsOf: own, at: 0)
            mirror = current.superclassMirror
        }
        return properties
    }

    /// The value of the projected property `name`, typed `Any`.
    subscript(projected name: String) -> Any? {
        projectedProperties.first { $0.name == name }.map { rootObject[keyPath: $0.keyPath] }
    }
}

/// What `Projection` reads of a `@Projected` property without knowing its value type.
protocol AnyProjected<Root> {
    associatedtype Root: Object
    var projectedKeyPath: PartialKeyPath<Root> { get }
}

/// A property of a `Projection`: the value a key path reads from the projected object.
///
///     @Projected(\Person.name) var name                // String, read and written through
///     @Projected(\Person.address?.city) var city      // String?, read only
@propertyWrapper
public struct Projected<Root: Object, Value>: AnyProjected {
    let keyPath: KeyPath<Root, Value>

    /// A property projecting `projectedKeyPath` of the projected object.
    ///
    /// - Parameter projectedKeyPath: A key path from the object: a property, or one reached
    ///   through links.
    public init(_ projectedKeyPath: KeyPath<Root, Value>) {
        keyPath = projectedKeyPath
    }

    var projectedKeyPath: PartialKeyPath<Root> { keyPath }

    @available(*, unavailable, message: "@Projected is only for properties of Projection subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Projected is only for properties of Projection subclasses") }
        set { fatalError("@Projected is only for properties of Projection subclasses") }
    }

    /// Reads (and, through a writable key path, writes) the projected object.
    public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<Root, Value>>
    ) -> Value {
        get { projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath] }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value> else {
                stop("\(keyPath) is read-only, so the projected property cannot be set; set the object's property through rootObject instead")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}
