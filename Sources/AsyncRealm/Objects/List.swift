/// An ordered to-many property: a list of objects or of primitive values, duplicates allowed.
///
/// An unmanaged list holds its elements in memory like an array.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection {
    var elements: [Element] {
        willSet {
            precondition(!isSnapshot, "changing a List of a managed object is not supported yet; build the list before adding the object")
        }
    }
    /// A list read from a managed object: its elements as of that read, read-only.
    private var isSnapshot = false

    public init() {
        elements = []
    }

    init(snapshotOf elements: [Element]) {
        self.elements = elements
        isSnapshot = true
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }

    public subscript(position: Int) -> Element {
        get { elements[position] }
        set { elements[position] = newValue }
    }

    public func append(_ element: Element) { elements.append(element) }

    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        self.elements.append(contentsOf: elements)
    }

    public func insert(_ element: Element, at index: Int) { elements.insert(element, at: index) }

    public func remove(at index: Int) { elements.remove(at: index) }

    public func removeAll() { elements.removeAll() }

    /// Moves the element at `from` to `to`, shifting the ones between.
    public func move(from: Int, to: Int) {
        let element = elements.remove(at: from)
        elements.insert(element, at: to)
    }

    public func swapAt(_ index1: Int, _ index2: Int) { elements.swapAt(index1, index2) }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) { elements[index] = object }
}

extension List: _Persistable {
    public static var _persistedKind: _PersistedKind {
        var kind = Element._persistedKind
        kind.isArray = true
        return kind
    }

    public static func _persistedDefault() -> List { List() }

    public static func _fromStorage(_ stored: _StorageValue, realm: Realm) -> List {
        guard case .list(let values) = stored.value else { storageMismatch(stored, Self.self) }
        return List(snapshotOf: values.map { Element._fromStorage(_StorageValue($0), realm: realm) })
    }

    public func _toStorage(realm: Realm) -> _StorageValue {
        _StorageValue(.list(elements.map { $0._toStorage(realm: realm).value }))
    }
}
