import StorageEngine

/// Iterates a list's or set's elements as they were when iteration began, as RealmSwift's
/// enumeration does: removing, deleting or appending elements inside the loop neither skips
/// one nor goes on for ever, and an object deleted after the loop began comes as an
/// invalidated one. An unmanaged collection's elements are copied; a managed one's stored
/// elements are read once, each made an element when the loop reaches it.
public struct CollectionSnapshotIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let unmanaged: [Element]?
    private let stored: [RowValue]
    private let location: ManagedListLocation?
    /// Whether a mixed element's list or dictionary is live at its place (a list's elements
    /// have places; a set's hold no collections).
    private let placesElements: Bool
    private var position = 0

    init(unmanaged: [Element]) {
        self.unmanaged = unmanaged
        stored = []
        location = nil
        placesElements = false
    }

    init(location: ManagedListLocation, placesElements: Bool) {
        unmanaged = nil
        stored = location.values()
        self.location = location
        self.placesElements = placesElements
    }

    /// The next element, or nil after the last.
    ///
    /// - Returns: The next element, or nil after the last.
    public mutating func next() -> Element? {
        defer { position += 1 }
        if let unmanaged { return position < unmanaged.count ? unmanaged[position] : nil }
        guard position < stored.count, let location else { return nil }
        return location.element(stored[position], as: Element.self, at: placesElements ? .element(location, position: position) : nil)
    }
}
