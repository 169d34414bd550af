import StorageEngine

/// A `SORT`, `DISTINCT` or `LIMIT` step, resolved against the class.
enum BoundStep: Sendable {
    case sort([(path: BoundKeyPath, ascending: Bool)])
    case distinct([BoundKeyPath])
    case limit(Int)
}
