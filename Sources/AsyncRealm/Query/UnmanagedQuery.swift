/// The queries RealmSwift runs on the objects of an unmanaged `List`: `index(matching:)` and
/// the aggregates (`filter`, `sorted` and `distinct` need a managed list there too).
///
/// The predicate is bound and evaluated as for `Results`, each object read through its
/// accessor (`QueryEvaluator.ObjectRow(accessor:)`), so the answers are the same a managed
/// list would give. A scratch in-memory realm, which never holds an object, knows the classes
/// (for binding, and for the recorder of `where` blocks).
struct UnmanagedQuery<Element: Object> {
    private let realm: Realm
    private let schema: ObjectSchema

    init() {
        // One scratch realm per model class: two classes of one name (in two modules) never meet.
        let identifier = "AsyncRealm.unmanaged-queries.\(ObjectIdentifier(Element.self).hashValue)"
        do {
            realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: [Element.self]))
        } catch {
            stop("cannot query an unmanaged list of '\(Element.className())': \(error)")
        }
        schema = realm.objectSchemas[Element.className()]!
    }

    /// The position of the first of `objects` that `predicate` holds for.
    func firstIndex(in objects: [Element], matching predicate: RealmPredicate) throws -> Int? {
        guard predicate.modifiers.steps.isEmpty else {
            throw RealmError(code: .invalidQuery, message: "SORT, DISTINCT and LIMIT need a managed list; index(matching:) of an unmanaged list takes a plain predicate")
        }
        return firstIndex(in: objects, matching: try QueryBinder(schemas: realm.objectSchemas).bind(predicate.node, to: schema))
    }

    /// The position of the first of `objects` that the type-safe query holds for.
    func firstIndex(in objects: [Element], where block: (Query<Element>) -> Query<Bool>) -> Int? {
        let node = block(Query<Element>(realm: realm, path: [])).booleanNode
        do {
            return firstIndex(in: objects, matching: try QueryBinder(schemas: realm.objectSchemas).bind(node, to: schema))
        } catch {
            stop("\(error)")
        }
    }

    private func firstIndex(in objects: [Element], matching bound: BoundPredicate) -> Int? {
        let evaluator = QueryEvaluator(realm: realm)
        return objects.firstIndex { evaluator.matches(bound, QueryEvaluator.ObjectRow(accessor: $0, realm: realm)) }
    }

    func min<T: _Persistable>(of objects: [Element], property: String) -> T? {
        let (values, type) = values(of: property, in: objects)
        return Aggregates.extreme(values, type: type) { $0 < 0 }
    }

    func max<T: _Persistable>(of objects: [Element], property: String) -> T? {
        let (values, type) = values(of: property, in: objects)
        return Aggregates.extreme(values, type: type) { $0 > 0 }
    }

    func sum<T: _Persistable>(of objects: [Element], property: String) -> T {
        Aggregates.sum(total(of: property, in: objects), as: T.self, of: described(property))
    }

    func average<T: _Persistable>(of objects: [Element], property: String) -> T? {
        Aggregates.average(total(of: property, in: objects), as: T.self, of: described(property))
    }

    private func total(of property: String, in objects: [Element]) -> (Any, Int) {
        let (values, type) = values(of: property, in: objects)
        return Aggregates.total(values, type: type, of: described(property))
    }

    private func described(_ property: String) -> String { "'\(schema.className).\(property)'" }

    /// The non-nil values of `property` over `objects`.
    private func values(of property: String, in objects: [Element]) -> ([QueryScalar], PropertyType) {
        guard let components = KeyPathText.components(property) else {
            stop("cannot aggregate '\(property)': \(KeyPathText.malformed(property))")
        }
        let path: BoundKeyPath
        do {
            path = try QueryBinder(schemas: realm.objectSchemas).keyPath(components, from: schema, variables: [:], position: 0)
        } catch {
            stop("cannot aggregate '\(property)': \((error as? RealmError)?.message ?? "\(error)")")
        }
        require(!path.isCollection, "cannot aggregate '\(property)': it goes through a list or linking objects; use a property with one value per object")
        let evaluator = QueryEvaluator(realm: realm)
        let values = objects.map { evaluator.value(of: path, from: QueryEvaluator.ObjectRow(accessor: $0, realm: realm)) }
        return (values.filter { $0 != .null }, path.property.type)
    }
}
