import Foundation

/// The projections of the objects of a class, as `realm.objects(PersonView.self)` gives them:
/// live `Results` of the projected objects, each read as a projection.
///
/// Queries, sorts and `distinct` name the projected class's properties (the projection reads
/// what they find): `realm.objects(PersonView.self).filter("age > 30")`.
public struct ProjectedResults<Element: ProjectionObservable>: RandomAccessCollection, ThreadConfined {
    /// The projected objects.
    public let rootResults: Results<Element.Root>

    init(_ rootResults: Results<Element.Root>) {
        self.rootResults = rootResults
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The position after the last projection: the number of objects the results hold now.
    public var endIndex: Int { rootResults.count }

    /// The projection of the object at `position`.
    ///
    /// - Parameter position: A position below `count`.
    public subscript(position: Int) -> Element {
        Element(projecting: rootResults[position])
    }

    /// The realm the objects belong to.
    public var realm: Realm? { rootResults.realm }

    /// The projections of the objects matching a predicate string.
    ///
    /// - Parameters:
    ///   - predicateFormat: A predicate over the projected class (see `Docs/Queries.md`).
    ///   - arguments: The values of its placeholders.
    /// - Returns: Live projected results.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> ProjectedResults {
        do {
            return ProjectedResults(try rootResults.filter(RealmPredicate(predicateFormat, arguments: arguments)))
        } catch {
            stop("\(error)")
        }
    }

    /// The projections of the objects matching `predicate`.
    ///
    /// - Parameter predicate: A parsed predicate over the projected class.
    /// - Returns: Live projected results.
    /// - Throws: `invalidQuery` when the predicate does not fit the projected class.
    public func filter(_ predicate: RealmPredicate) throws -> ProjectedResults {
        ProjectedResults(try rootResults.filter(predicate))
    }

    /// The projections of the objects for which the type-safe query holds.
    ///
    /// - Parameter block: Builds the predicate from the projected class's properties.
    /// - Returns: Live projected results.
    public func `where`(_ block: (Query<Element.Root>) -> Query<Bool>) -> ProjectedResults {
        ProjectedResults(rootResults.where(block))
    }

    /// The projections sorted by a property of the projected class.
    ///
    /// - Parameters:
    ///   - keyPath: A property, or a key path through to-one links.
    ///   - ascending: Whether the smallest value comes first.
    /// - Returns: Live projected results in that order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> ProjectedResults {
        ProjectedResults(rootResults.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// The projections sorted by several properties of the projected class.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live projected results in that order.
    public func sorted<S: Sequence>(by descriptors: S) -> ProjectedResults where S.Element == SortDescriptor {
        ProjectedResults(rootResults.sorted(by: descriptors))
    }

    /// The projection of the first object of each distinct combination of `keyPaths`.
    ///
    /// - Parameter keyPaths: Properties of the projected class.
    /// - Returns: Live projected results.
    public func distinct<S: Sequence>(by keyPaths: S) -> ProjectedResults where S.Element == String {
        ProjectedResults(rootResults.distinct(by: keyPaths))
    }

    /// A stream of the projected results' changes: the changes of the projected objects'
    /// results, with the projected results as the collection.
    public var changes: ChangeStream<RealmCollectionChange<ProjectedResults>> {
        let results = rootResults
        let realm = results.handle
        realm.checkThread()
        let observer = ResultsObserver(results: results, paths: ObservedPaths.everything(of: results.info.schema, schemas: realm.objectSchemas))
        return ChangeStream(core: StreamDriver(realm: realm, observer: MappedObserver(observer) { change in
            switch change {
            case .initial: .initial(ProjectedResults(results))
            case .update(_, let deletions, let insertions, let modifications):
                .update(ProjectedResults(results), deletions: deletions, insertions: insertions, modifications: modifications)
            }
        }))
    }

    public var _confinedDescription: _ConfinedDescription { rootResults._confinedDescription }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> ProjectedResults? {
        guard let results = Results<Element.Root>._resolve(description, in: realm) else { return nil }
        return ProjectedResults(results)
    }
}

extension Realm {
    /// The projections of every object of the class `type` projects, as RealmSwift's
    /// `objects(_:)` with a `Projection` subclass.
    ///
    /// - Parameter type: A `Projection` subclass.
    /// - Returns: Live projected results, in the objects' order.
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> ProjectedResults<P> {
        ProjectedResults(objects(P.Root.self))
    }
}
