/// A projection, for its `changes` stream and `ProjectedResults`: what `Projection` subclasses
/// are.
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the objects projected.
    associatedtype Root: Object
    /// The object projected.
    var rootObject: Root { get }
    /// A projection of `object`.
    ///
    /// - Parameter object: The object to project.
    init(projecting object: Root)
}

extension Projection: ProjectionObservable {}

extension ProjectionObservable {
    /// A stream of the projection's changes: `.change` with the projected properties that
    /// changed (under the projection's names), after each commit that changes one; `.deleted`
    /// when the projected object is deleted, and then the stream ends.
    ///
    /// - Important: Only the projection of a managed object has changes.
    public var changes: ChangeStream<ObjectChange<Self>> {
        guard let managed = rootObject.managed, let projection = self as? Projection<Root> else {
            stop("only the projection of a managed object has changes to observe; add the object to a realm first")
        }
        let realm = managed.realm
        realm.checkThread()
        let projected = projection.projectedProperties.map { (name: $0.name, path: realm.keyPathText(of: $0.keyPath, in: Root.self)) }
        let paths = ObservedPaths.paths(projected.map(\.path), of: managed.info.schema, schemas: realm.objectSchemas)
        let observer = ObjectObserver(object: rootObject, managed: managed, paths: paths)
        return ChangeStream(core: StreamDriver(realm: realm, observer: MappedObserver(observer) { change in
            switch change {
            case .deleted: return .deleted
            case .change(_, let properties):
                let changed = projected.compactMap { property -> PropertyChange? in
                    let components = property.path.split(separator: ".").map(String.init)
                    guard let change = properties.first(where: { $0.name == components[0] }) else { return nil }
                    let isWhole = components.count == 1
                    return PropertyChange(name: property.name, oldValue: isWhole ? change.oldValue : nil,
                                          newValue: isWhole ? change.newValue : projection[projected: property.name])
                }
                return changed.isEmpty ? nil : .change(self, changed)
            }
        }))
    }
}
