import Foundation

/// How to sort results: a key path (through to-one links) and a direction.
public struct SortDescriptor: Sendable, Hashable {
    /// The property to sort by, or a key path through to-one links (`"owner.name"`).
    public var keyPath: String
    /// Whether the smallest value comes first (nil sorts before every value).
    public var ascending: Bool

    /// A sort on `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: A property, or a key path through to-one links.
    ///   - ascending: Whether the smallest value comes first.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// The same sort, in the other direction.
    ///
    /// - Returns: A descriptor on the same key path with `ascending` flipped.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}

extension SortDescriptor: ExpressibleByStringLiteral {
    /// An ascending sort on the key path `value`: `sorted(by: ["name", "age"])`.
    ///
    /// - Parameter value: A property, or a key path through to-one links.
    public init(stringLiteral value: String) {
        self.init(keyPath: value)
    }
}

extension Results {
    /// The objects sorted by the property at `keyPath` (through to-one links: `owner.name`);
    /// equal values keep their order, and nil sorts first when ascending.
    ///
    /// - Important: A key path the class does not have, or one through a list, stops with a
    ///   message saying so.
    ///
    /// - Parameters:
    ///   - keyPath: A property, or a key path through to-one links.
    ///   - ascending: Whether the smallest value comes first.
    /// - Returns: Live results in that order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by each descriptor in turn.
    ///
    /// - Parameter descriptors: The key paths and directions, most significant first.
    /// - Returns: Live results in that order.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        sorting(Array(descriptors))
    }

    func sorting(_ descriptors: [SortDescriptor]) -> Results<Element> {
        let keys = descriptors.map { (path: boundPath($0.keyPath, for: "sort by"), ascending: $0.ascending) }
        return Results(realm: handle, unretainedInfo: unretainedInfo, query: query, steps: steps + [.sort(keys)], base: base, invalidations: invalidations)
    }

    /// The objects with distinct values at `keyPaths`, keeping the first of each.
    ///
    /// - Parameter keyPaths: Properties, or key paths through to-one links.
    /// - Returns: Live results.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        distinguishing(Array(keyPaths))
    }

    func distinguishing(_ keyPaths: [String]) -> Results<Element> {
        let paths = keyPaths.map { boundPath($0, for: "take distinct values of") }
        return Results(realm: handle, unretainedInfo: unretainedInfo, query: query, steps: steps + [.distinct(paths)], base: base, invalidations: invalidations)
    }

    // MARK: Helpers

    /// `keyPath` resolved for sorting or distinct: one value per object.
    func boundPath(_ keyPath: String, for use: String) -> BoundKeyPath {
        guard let components = KeyPathText.components(keyPath) else {
            stop("cannot \(use) '\(keyPath)': \(KeyPathText.malformed(keyPath))")
        }
        do {
            let path = try QueryBinder(schemas: handle.objectSchemas).keyPath(components, from: info.schema, variables: [:], position: 0)
            guard !path.isCollection else {
                stop("cannot \(use) '\(keyPath)': it goes through a list or linking objects; use a property with one value per object")
            }
            return path
        } catch {
            stop("cannot \(use) '\(keyPath)': \((error as? RealmError)?.message ?? "\(error)")")
        }
    }
}
