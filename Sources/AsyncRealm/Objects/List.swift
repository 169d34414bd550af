import StorageEngine

/// An ordered to-many property: a list of objects or of primitive values, duplicates allowed.
///
/// An unmanaged list holds its elements in memory like an array. The list of a managed object
/// reads and writes its realm: every accessor sees a change at once, and changing it needs a
/// write transaction.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection {
    private var unmanaged: [Element] = []
    /// Where a managed list lives: its owner's row and column.
    private let location: ManagedListLocation?

    public init() {
        location = nil
    }

    init(location: ManagedListLocation) {
        self.location = location
    }

    /// The realm managing this list, or nil if it is unmanaged.
    public var realm: Realm? { location?.owner.realm }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        guard let location else { return unmanaged.count }
        return location.values().count
    }

    public subscript(position: Int) -> Element {
        get {
            guard let location else { return unmanaged[position] }
            return Element._fromStorage(_StorageValue(location.values()[position]), realm: location.owner.realm)
        }
        set { mutate { $0[position] = newValue } }
    }

    public func append(_ element: Element) { mutate { $0.append(element) } }

    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        mutate { $0.append(contentsOf: elements) }
    }

    public func insert(_ element: Element, at index: Int) { mutate { $0.insert(element, at: index) } }

    public func remove(at index: Int) { mutate { $0.remove(at: index) } }

    public func removeAll() { mutate { $0.removeAll() } }

    /// Moves the element at `from` to `to`, shifting the ones between.
    public func move(from: Int, to: Int) {
        mutate { elements in
            let element = elements.remove(at: from)
            elements.insert(element, at: to)
        }
    }

    public func swapAt(_ index1: Int, _ index2: Int) { mutate { $0.swapAt(index1, index2) } }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) { mutate { $0[index] = object } }

    /// Applies `change` to the elements: in memory, or in the realm for a managed list.
    private func mutate(_ change: (inout [Element]) -> Void) {
        guard let location else {
            change(&unmanaged)
            return
        }
        let realm = location.owner.realm
        var elements = location.values().map { Element._fromStorage(_StorageValue($0), realm: realm) }
        change(&elements)
        location.store(elements.map { $0._toStorage(realm: realm).value })
    }
}

/// Where the list of a managed object is stored.
struct ManagedListLocation {
    let owner: ManagedObjectState
    let column: Int

    func values() -> [Value] {
        guard case .list(let values) = owner.realm.column(column, of: owner) else { return [] }
        return values
    }

    func store(_ values: [Value]) {
        owner.realm.setColumn(column, of: owner, to: .list(values))
    }
}

/// Builds the `List` of a managed object for an element type known only at run time.
protocol ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> Self
}

extension List: ManagedListBuilding {
    static func managed(at location: ManagedListLocation) -> List { List(location: location) }
}

extension List: _Persistable {
    public static var _persistedKind: _PersistedKind {
        var kind = Element._persistedKind
        kind.isArray = true
        return kind
    }

    public static func _persistedDefault() -> List { List() }

    /// A new unmanaged list from an array (or any sequence) of values its elements accept.
    public static func _fromAny(_ value: Any?) -> List? {
        if let list = value as? List { return list }
        guard let sequence = value as? any Sequence else { return nil }
        var elements: [Element] = []
        for item in sequence {
            guard let element = Element._fromAny(item) else { return nil }
            elements.append(element)
        }
        let list = List()
        list.unmanaged = elements
        return list
    }

    /// An unmanaged copy of a stored list (managed lists are built by `Realm.read`).
    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> List {
        guard case .list(let values) = stored.value else { storageMismatch(stored, Self.self) }
        let list = List()
        list.unmanaged = values.map { Element._fromStorage(_StorageValue($0), realm: realm) }
        return list
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        if let location, location.owner.realm === realm { return _StorageValue(.list(location.values())) }
        return _StorageValue(.list(map { $0._toStorage(realm: realm).value }))
    }
}
