extension Realm {
    /// What `add(_:update:)` does with an object whose primary key is already in the realm.
    public enum UpdatePolicy: Sendable {
        /// Adding it is an error: the write fails with `duplicatePrimaryKey`.
        case error
        /// The stored object takes the new values; only properties whose values differ count as
        /// modified.
        case modified
        /// The stored object takes every value of the new one.
        case all
    }
}
