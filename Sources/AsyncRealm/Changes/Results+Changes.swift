import StorageEngine

extension Results {
    /// A stream of the results' changes: `.initial` first, then an `.update` whenever a commit
    /// changes which objects they hold, their order, or an object they hold (its properties,
    /// or those of objects it links to, four links deep).
    public var changes: ChangeStream<RealmCollectionChange<Results<Element>>> {
        stream(paths: ObservedPaths.everything(of: info.schema, schemas: handle.objectSchemas))
    }

    /// A stream of the results' changes in which only changes to `keyPaths` (dotted property
    /// names, such as `"name"` or `"owner.name"`) count as modifications. Insertions and
    /// deletions are reported whatever the key paths.
    ///
    /// - Parameter keyPaths: Dotted property names of the objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmCollectionChange<Results<Element>>> {
        stream(paths: ObservedPaths.paths(keyPaths, of: info.schema, schemas: handle.objectSchemas))
    }

    private func stream(paths: ObservedPaths) -> ChangeStream<RealmCollectionChange<Results<Element>>> {
        handle.checkThread()
        return ChangeStream(core: StreamDriver(realm: handle, observer: ResultsObserver(results: self, paths: paths)))
    }

    /// Whether `changes` may change which objects the results hold or their order: rows of the
    /// class inserted or deleted, a column the query or sort reads modified, any change when
    /// the query reads through links, and any change to what a list or linking objects hold.
    func membership(mayChangeWith changes: Changeset) -> Bool {
        guard !changes.isEmpty else { return false }
        let reads = readColumns
        guard base == nil, let ownColumns = reads else { return true }
        guard let own = changes.tables[info.tableName] else { return false }
        if !own.insertedKeys.isEmpty || !own.deletedKeys.isEmpty { return true }
        return own.modified.values.contains { $0.isEmpty || !$0.isDisjoint(with: ownColumns) }
    }

    /// The columns the query and its steps read, or nil if they read through a link, list or
    /// linking objects.
    private var readColumns: Set<Int>? {
        var paths: [BoundKeyPath] = []
        if let query { Self.collect(query, into: &paths) }
        for step in steps {
            switch step {
            case .sort(let order): paths += order.map(\.path)
            case .distinct(let keys): paths += keys
            case .limit: break
            }
        }
        var columns = Set<Int>()
        for path in paths {
            guard path.hops.count == 1, case .value(let column) = path.hops[0] else { return nil }
            columns.insert(column)
        }
        return columns
    }

    private static func collect(_ predicate: BoundPredicate, into paths: inout [BoundKeyPath]) {
        switch predicate {
        case .constant: break
        case .not(let inner): collect(inner, into: &paths)
        case .and(let operands), .or(let operands):
            for operand in operands { collect(operand, into: &paths) }
        case .comparison(let comparison):
            for side in [comparison.left, comparison.right] {
                switch side {
                case .constant: break
                case .path(let path, _), .subqueryCount(let path, _): paths.append(path)
                }
            }
        }
    }
}

extension List {
    /// A stream of the list's changes: `.initial`, then an `.update` whenever its elements
    /// change or (for a list of objects) an object it holds is modified. If the list's object
    /// is deleted, its elements are reported deleted and the stream ends.
    ///
    /// - Important: Only a managed list has changes; an unmanaged one stops with a message.
    public var changes: ChangeStream<RealmCollectionChange<List<Element>>> {
        stream(keyPaths: nil)
    }

    /// A stream of the list's changes in which only changes to `keyPaths` of its objects count
    /// as modifications.
    ///
    /// - Parameter keyPaths: Dotted property names of the list's objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmCollectionChange<List<Element>>> {
        stream(keyPaths: keyPaths)
    }

    private func stream(keyPaths: [String]?) -> ChangeStream<RealmCollectionChange<List<Element>>> {
        if let nested {
            nested.realm.checkThread()
            return ChangeStream(core: StreamDriver(realm: nested.realm, observer: NestedListObserver(list: self, location: nested)))
        }
        guard let location = managedLocation else {
            stop("only a managed list has changes to observe; add its object to a realm first")
        }
        return location.changeStream(of: self, keyPaths: keyPaths)
    }
}

extension MutableSet {
    /// A stream of the set's changes: `.initial`, then an `.update` whenever elements are
    /// inserted or removed or (for a set of objects) an object it holds is modified, with the
    /// positions as `set[i]` gives them. If the set's object is deleted, its elements are
    /// reported deleted and the stream ends.
    ///
    /// - Important: Only a managed set has changes; an unmanaged one stops with a message.
    public var changes: ChangeStream<RealmCollectionChange<MutableSet<Element>>> {
        stream(keyPaths: nil)
    }

    /// A stream of the set's changes in which only changes to `keyPaths` of its objects count
    /// as modifications.
    ///
    /// - Parameter keyPaths: Dotted property names of the set's objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmCollectionChange<MutableSet<Element>>> {
        stream(keyPaths: keyPaths)
    }

    private func stream(keyPaths: [String]?) -> ChangeStream<RealmCollectionChange<MutableSet<Element>>> {
        guard let location = managedLocation else {
            stop("only a managed set has changes to observe; add its object to a realm first")
        }
        return location.changeStream(of: self, keyPaths: keyPaths)
    }
}

extension Map {
    /// A stream of the map's changes: `.initial`, then an `.update` with the keys removed,
    /// added and changed whenever its entries change or (for a map of objects) an object it
    /// holds is modified. If the map's object is deleted, its keys are reported deleted and the
    /// stream ends.
    ///
    /// - Important: Only a managed map has changes; an unmanaged one stops with a message.
    public var changes: ChangeStream<RealmMapChange<Map<Key, Value>>> {
        stream(keyPaths: nil)
    }

    /// A stream of the map's changes in which only changes to `keyPaths` of its objects count
    /// as modifications.
    ///
    /// - Parameter keyPaths: Dotted property names of the map's objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmMapChange<Map<Key, Value>>> {
        stream(keyPaths: keyPaths)
    }

    private func stream(keyPaths: [String]?) -> ChangeStream<RealmMapChange<Map<Key, Value>>> {
        if let nested {
            nested.realm.checkThread()
            return ChangeStream(core: StreamDriver(realm: nested.realm, observer: NestedMapObserver(map: self, location: nested)))
        }
        guard let location = managedLocation else {
            stop("only a managed map has changes to observe; add its object to a realm first")
        }
        location.realm.checkThread()
        let paths = location.observedPaths(keyPaths: keyPaths)
        return ChangeStream(core: StreamDriver(realm: location.realm, observer: MapObserver(map: self, location: location, paths: paths)))
    }
}

extension ManagedListLocation {
    /// For a collection of objects, what counts as a modification of one: `keyPaths` of them,
    /// or every property to the default depth.
    func observedPaths(keyPaths: [String]?) -> ObservedPaths? {
        let property = owner.info.schema.storedProperties[column]
        return property.objectClassName.flatMap { realm.objectSchemas[$0] }.map { schema in
            keyPaths.map { ObservedPaths.paths($0, of: schema, schemas: realm.objectSchemas) }
                ?? ObservedPaths.everything(of: schema, schemas: realm.objectSchemas, depth: ObservedPaths.defaultLinkDepth - 1)
        }
    }

    /// The change stream of `collection`, the list or set stored here.
    func changeStream<C>(of collection: C, keyPaths: [String]?) -> ChangeStream<RealmCollectionChange<C>> {
        realm.checkThread()
        return ChangeStream(core: StreamDriver(realm: realm, observer: ListObserver(list: collection, location: self, paths: observedPaths(keyPaths: keyPaths))))
    }
}

extension LinkingObjects {
    /// A stream of the linking objects' changes: `.initial` (as live `Results` in the order
    /// the backlink index gives), then an `.update` whenever an object starts or stops linking
    /// here, or one that links is modified.
    ///
    /// - Important: Only the linking objects of a managed object have changes.
    public var changes: ChangeStream<RealmCollectionChange<Results<Element>>> {
        liveResults.changes
    }

    /// A stream of the linking objects' changes in which only changes to `keyPaths` count as
    /// modifications.
    ///
    /// - Parameter keyPaths: Dotted property names of the linking objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmCollectionChange<Results<Element>>> {
        liveResults.changes(keyPaths: keyPaths)
    }
}

/// `object.changes` for every model class.
public protocol ObjectChangeObservable: AnyObject {}
extension Object: ObjectChangeObservable {}

extension ObjectChangeObservable where Self: Object {
    /// A stream of the object's changes: `.change` with the properties that changed (and their
    /// old and new values) after each commit that changes it, or an object it links to (four
    /// links deep); `.deleted` when it is deleted, and then the stream ends.
    ///
    /// - Important: Only a managed object has changes; an unmanaged one stops with a message.
    public var changes: ChangeStream<ObjectChange<Self>> {
        stream(keyPaths: nil)
    }

    /// A stream of the object's changes to `keyPaths` (dotted property names) only.
    ///
    /// - Parameter keyPaths: Dotted property names of the object.
    /// - Returns: A stream of `.change` elements, then `.deleted` if the object is deleted.
    public func changes(keyPaths: [String]) -> ChangeStream<ObjectChange<Self>> {
        stream(keyPaths: keyPaths)
    }

    private func stream(keyPaths: [String]?) -> ChangeStream<ObjectChange<Self>> {
        guard let managed else {
            stop("only a managed object has changes to observe; add it to a realm first")
        }
        let realm = managed.realm
        realm.checkThread()
        let schema = managed.info.schema
        let paths = keyPaths.map { ObservedPaths.paths($0, of: schema, schemas: realm.objectSchemas) }
            ?? ObservedPaths.everything(of: schema, schemas: realm.objectSchemas)
        return ChangeStream(core: StreamDriver(realm: realm, observer: ObjectObserver(object: self, managed: managed, paths: paths)))
    }
}
