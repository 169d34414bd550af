import Foundation

/// What `Results`, `List` and `LinkingObjects` of objects have in common, as RealmSwift's
/// `RealmCollection`: random access, queries, sorting, aggregates, key-value access, and (from
/// `ThreadConfined`) `freeze()`, `thaw()` and `isFrozen`.
public protocol RealmCollection<Element>: RandomAccessCollection, ThreadConfined where Element: Object, Index == Int {
    /// The realm the objects belong to; nil for an unmanaged list.
    var realm: Realm? { get }

    func filter(_ predicate: RealmPredicate) throws -> Results<Element>
    func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element>
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    func sorted(by descriptors: [SortDescriptor]) -> Results<Element>
    func distinct(by keyPaths: [String]) -> Results<Element>
    func min<T: _Persistable>(ofProperty property: String) -> T?
    func max<T: _Persistable>(ofProperty property: String) -> T?
    func sum<T: _Persistable>(ofProperty property: String) -> T
    func average<T: _Persistable>(ofProperty property: String) -> T?
}

extension RealmCollection {
    /// The objects that match `predicateFormat`; stops on an invalid predicate.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        do {
            return try filter(RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The position of `object` (the same stored object), nil if the collection does not hold it.
    public func index(of object: Element) -> Int? {
        firstIndex { $0.isSameObject(as: object) }
    }

    /// The position of the first object matching `predicateFormat`; stops on an invalid one.
    public func index(matching predicateFormat: String, _ arguments: Any...) -> Int? {
        do {
            return try index(matching: RealmPredicate(predicateFormat, arguments: arguments))
        } catch {
            stop("\(error)")
        }
    }

    /// The position of the first object matching `predicate`. An unmanaged list evaluates it
    /// on its objects, as RealmSwift does.
    public func index(matching predicate: RealmPredicate) throws -> Int? {
        if realm == nil { return try UnmanagedQuery<Element>().firstIndex(in: Array(self), matching: predicate) }
        return firstIndex(among: try filter(predicate))
    }

    /// The position of the first object for which the type-safe query holds. An unmanaged list
    /// evaluates it on its objects, as RealmSwift does.
    public func index(matching block: (Query<Element>) -> Query<Bool>) -> Int? {
        if realm == nil { return UnmanagedQuery<Element>().firstIndex(in: Array(self), where: block) }
        return firstIndex(among: self.where(block))
    }

    /// The position of the first object that `matching` holds: one set lookup per object
    /// (objects hash by stored identity), not a search of `matching` each.
    private func firstIndex(among matching: Results<Element>) -> Int? {
        let found = Set<Object>(matching.map { $0 as Object })
        return firstIndex { found.contains($0) }
    }

    /// Property `key` of every object, in order (KVC on collections, as the reference shows);
    /// the objects themselves for the key `self`.
    public func value(forKey key: String) -> [Any?] {
        map { $0.value(forKey: key) }
    }

    /// Sets property `key` of every object; needs a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object.setValue(value, forKey: key) }
    }

    /// The objects at `indexes`, in order.
    public func objects(at indexes: IndexSet) -> [Element] {
        indexes.map { self[$0] }
    }
}

extension Results: RealmCollection {
    /// The realm the results read.
    public var realm: Realm? { handle }

    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        sorting(descriptors)
    }

    public func distinct(by keyPaths: [String]) -> Results<Element> {
        distinguishing(keyPaths)
    }
}

extension List: RealmCollection where Element: Object {
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        queryResults.sorted(by: descriptors)
    }

    public func distinct(by keyPaths: [String]) -> Results<Element> {
        queryResults.distinct(by: keyPaths)
    }
}

extension LinkingObjects: RealmCollection {
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> {
        queryResults.sorted(by: descriptors)
    }

    public func distinct(by keyPaths: [String]) -> Results<Element> {
        queryResults.distinct(by: keyPaths)
    }
}

/// A type-erased `RealmCollection`: `Results`, a `List` or `LinkingObjects` behind one type.
public struct AnyRealmCollection<Element: Object>: RealmCollection {
    private let base: any RealmCollection<Element>

    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = base
    }

    public var startIndex: Int { base.startIndex }
    public var endIndex: Int { base.endIndex }
    public subscript(position: Int) -> Element { base[position] }
    public var realm: Realm? { base.realm }

    public func filter(_ predicate: RealmPredicate) throws -> Results<Element> { try base.filter(predicate) }
    public func `where`(_ block: (Query<Element>) -> Query<Bool>) -> Results<Element> { base.where(block) }
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> { base.sorted(byKeyPath: keyPath, ascending: ascending) }
    public func sorted(by descriptors: [SortDescriptor]) -> Results<Element> { base.sorted(by: descriptors) }
    public func distinct(by keyPaths: [String]) -> Results<Element> { base.distinct(by: keyPaths) }
    public func min<T: _Persistable>(ofProperty property: String) -> T? { base.min(ofProperty: property) }
    public func max<T: _Persistable>(ofProperty property: String) -> T? { base.max(ofProperty: property) }
    public func sum<T: _Persistable>(ofProperty property: String) -> T { base.sum(ofProperty: property) }
    public func average<T: _Persistable>(ofProperty property: String) -> T? { base.average(ofProperty: property) }

    public var _confinedDescription: _ConfinedDescription { base._confinedDescription }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> AnyRealmCollection? {
        switch description.kind {
        case .results: Results<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .list: List<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .linking: LinkingObjects<Element>._resolve(description, in: realm).map(AnyRealmCollection.init)
        case .object: nil
        }
    }
}
