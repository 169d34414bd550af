import Foundation
import StorageEngine

extension Realm {
    /// Deletes the realm file of `configuration` and every file beside it that belongs to it
    /// (`.lock`, `.log`), as RealmSwift's `deleteFiles(for:)`, and what a compaction or a
    /// `writeCopy` to its path left there when killed part way.
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

    /// Writes a compacted copy of this realm to a new file: only its live objects, freshly
    /// packed, with the same schema, schema version and data. Inside a write transaction the
    /// copy holds the transaction's changes so far, as RealmSwift's does. An in-memory realm
    /// can be copied to a file this way.
    ///
    /// The copy is written beside `fileURL` and linked into place once complete, so a crash
    /// leaves either no file there or the whole copy.
    ///
    /// - Parameters:
    ///   - fileURL: Where to write the copy; nothing may be there yet.
    ///   - encryptionKey: The 64-byte key to encrypt the copy with, or nil for a plain copy
    ///     (whatever this realm's own key): changing a realm's key is writing a copy.
    /// - Throws: `fileExists` if `fileURL` exists; `invalidEncryptionKey` for a key that is not
    ///   64 bytes long; `fileAccess`, `diskFull` or `filePermissionDenied` if writing fails (nothing is left at
    ///   `fileURL` then).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        checkThread()
        let key = try Configuration(encryptionKey: encryptionKey).storageEncryptionKey()
        let tables = if let transaction {
            Database.tablesToCopy(from: transaction)
        } else {
            Database.tablesToCopy(from: try snapshot())
        }
        try RealmError.translating { try Database.writeCopy(of: tables, toPath: fileURL.path, encryptionKey: key) }
    }
}
