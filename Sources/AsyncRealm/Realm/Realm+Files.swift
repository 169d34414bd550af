import Foundation
import StorageEngine

extension Realm {
    /// Deletes the realm file of `configuration` and every file beside it that belongs to it
    /// (`.lock`, `.log`), as RealmSwift's `deleteFiles(for:)`.
    ///
    /// - Parameter configuration: The realm whose files to delete; an in-memory realm has none.
    /// - Returns: Whether there was a realm file to delete.
    /// - Throws: `alreadyOpen` while any handle has the file open, in this process (a realm,
    ///   frozen value, result or reference still alive) or another; `fileAccess` or
    ///   `filePermissionDenied` if a file cannot be removed.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        return try RealmError.translating { try Database.deleteFiles(atPath: url.path) }
    }

    /// Whether the realm file of `configuration` exists; false for an in-memory realm.
    ///
    /// - Parameter configuration: The realm to look for.
    /// - Returns: Whether its file exists.
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }
}
