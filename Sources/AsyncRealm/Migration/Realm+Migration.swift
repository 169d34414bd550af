import Foundation
import StorageEngine

/// The schema version of the realm file at `fileURL`, as RealmSwift's `schemaVersionAtURL`.
///
/// - Parameters:
///   - fileURL: The realm file.
///   - encryptionKey: The file's key. Encryption is not supported yet: a key is refused.
/// - Returns: The `schemaVersion` the file was last opened (or migrated) with.
/// - Throws: `fileNotFound` if there is no file; `fail` if the file has no schema yet (it was
///   created but no class was ever stored in it); an engine error for a damaged file.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try Realm.schemaVersion(at: fileURL, encryptionKey: encryptionKey)
}

extension Realm {
    /// Opens `configuration`'s realm, migrating it if its schema version is older: what opening
    /// does by itself, for an app that wants the migration to happen at a moment it chooses.
    ///
    /// - Parameter configuration: The realm and its migration (`schemaVersion`,
    ///   `migrationBlock`, `objectTypes`).
    /// - Throws: What opening throws (see `init(configuration:)`).
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }

    static func schemaVersion(at fileURL: URL, encryptionKey: Data?) throws -> UInt64 {
        let configuration = Configuration(fileURL: fileURL, encryptionKey: encryptionKey, readOnly: true)
        try configuration.checkSupported()
        let snapshot = try RealmError.translating {
            try Database.open(path: fileURL.path, create: false, readOnly: true, encryptionKey: configuration.storageEncryptionKey()).snapshot()
        }
        guard let version = try SchemaStore.version(from: snapshot) else {
            throw RealmError(code: .fail, message: "the realm at '\(fileURL.path)' has no schema yet, so it has no schema version")
        }
        return version
    }

    // MARK: Opening

    /// Opens the file or in-memory database of `configuration`. With
    /// `deleteRealmIfMigrationNeeded`, a file whose schema version or schema differs from the
    /// configuration's is deleted with the files beside it and a new one is created.
    static func openDatabase(for configuration: Configuration, models: Schema?) throws -> Database {
        let open = {
            try RealmError.translating {
                let key = try configuration.storageEncryptionKey()
                if let file = configuration.file { return try Database.open(file: file, cacheBytes: configuration.pageCacheBytes, encryptionKey: key) }
                if let identifier = configuration.inMemoryIdentifier {
                    guard !configuration.readOnly else {
                        throw RealmError(code: .unsupportedConfiguration, message: "an in-memory realm cannot be read-only")
                    }
                    return try Database.inMemory(identifier: identifier, cacheBytes: configuration.pageCacheBytes)
                }
                return try Database.open(
                    path: configuration.fileURL!.path, create: !configuration.readOnly, readOnly: configuration.readOnly,
                    cacheBytes: configuration.pageCacheBytes, openTimeout: configuration.openTimeout, encryptionKey: key)
            }
        }
        try copySeedIfAsked(configuration)
        try compactIfAsked(configuration)
        guard configuration.deleteRealmIfMigrationNeeded, let path = configuration.fileURL?.path else { return try open() }
        let needsMigration = try {
            let snapshot = try RealmError.translating { try open().snapshot() }
            guard let version = try SchemaStore.version(from: snapshot) else { return false }
            let stored = try SchemaStore.load(from: snapshot)
            return version != configuration.schemaVersion
                || !SchemaDifferences.between(stored: stored, models: models?.objectSchema ?? [], modelsAreComplete: models != nil).isEmpty
        }()
        if needsMigration {
            _ = try RealmError.translating { try Database.deleteFiles(atPath: path) }
        }
        return try open()
    }

    /// Writes `seedFilePath`'s data to `fileURL` as a compacted copy when no file is there: the
    /// seed read as it stands (its redo log included), and the copy linked into place whole. A
    /// file another opener linked there first is kept.
    private static func copySeedIfAsked(_ configuration: Configuration) throws {
        guard let seed = configuration.seedFilePath, configuration.file == nil, configuration.inMemoryIdentifier == nil,
              let path = configuration.fileURL?.path, !FileManager.default.fileExists(atPath: path) else { return }
        try RealmError.translating {
            let key = try configuration.storageEncryptionKey()
            let tables = try Database.tablesToCopy(from: Database.open(
                path: seed.path, create: false, readOnly: true, cacheBytes: configuration.pageCacheBytes,
                openTimeout: configuration.openTimeout, encryptionKey: key
            ).snapshot())
            do {
                try Database.writeCopy(of: tables, toPath: path, encryptionKey: key)
            } catch let error as StorageError where error.code == .fileExists {
                // Another opener seeded the file first: open that one.
            }
        }
    }

    /// Compacts the file in place if `shouldCompactOnLaunch` asks, on its first open in this
    /// process while no other process has it open (see `Database.compactOnFirstOpen`).
    private static func compactIfAsked(_ configuration: Configuration) throws {
        guard let shouldCompact = configuration.shouldCompactOnLaunch, !configuration.readOnly, configuration.file == nil,
              configuration.inMemoryIdentifier == nil, let path = configuration.fileURL?.path else { return }
        _ = try RealmError.translating {
            try Database.compactOnFirstOpen(
                atPath: path, encryptionKey: configuration.storageEncryptionKey(), openTimeout: configuration.openTimeout
            ) { total, used in shouldCompact(Int(total), Int(used)) }
        }
    }

    /// Brings the file's schema to the models: checks the stored schema version, migrates an
    /// older file, and stores the model classes the file does not have.
    func openSchema(models: Schema?) throws {
        let stored = try SchemaStore.version(from: snapshot())
        try checkVersion(stored)
        if let stored, stored < configuration.schemaVersion {
            guard !configuration.readOnly else {
                throw RealmError(code: .readOnly, message: "the read-only realm has schema version \(stored) and the configuration \(configuration.schemaVersion); open it for writing once to migrate it")
            }
            try migrate(to: models)
        }
        if let models { try register(models, isComplete: true) }
    }

    /// Throws if the file's schema version `stored` is higher than the configuration's.
    func checkVersion(_ stored: UInt64?) throws {
        guard let stored, stored > configuration.schemaVersion else { return }
        throw RealmError(code: .invalidSchemaVersion, message: "the realm has schema version \(stored), higher than the configuration's schemaVersion \(configuration.schemaVersion); set schemaVersion to \(stored) or higher")
    }

    /// The error for models that differ from the stored schema by `differences`.
    func schemaMismatch(_ differences: [String]) -> RealmError {
        // Without `objectTypes`, the classes are not known when the file is opened, so no
        // migration can change them: raising the version alone would not help.
        let remedy = configuration.objectTypes == nil
            ? "list the model classes in Configuration.objectTypes and raise Configuration.schemaVersion"
            : "raise Configuration.schemaVersion"
        return RealmError(code: .schemaMismatch, message: "the models differ from the schema stored in the realm, so it needs a migration: \(remedy) (the file was not changed):\n- " + differences.joined(separator: "\n- "))
    }

    // MARK: Migrating

    /// Migrates the file to `models` (nil: the classes stored, unchanged) and the
    /// configuration's schema version, in one write transaction: the automatic changes, the
    /// migration block, then the new schema and version. Anything that fails leaves the file as
    /// it was and is thrown. Another handle or process that migrated the file first, while this
    /// one waited for the write lock, leaves nothing to do.
    private func migrate(to models: Schema?) throws {
        try beginMigrationWrite()
        let schemasBefore = objectSchemas
        do {
            guard let transaction else { return }
            let storedVersion = try SchemaStore.version(in: transaction) ?? 0
            try checkVersion(storedVersion)
            guard storedVersion < configuration.schemaVersion else {
                cancelWrite()
                return
            }
            let oldSchemas = try SchemaStore.load(in: transaction)
            var newSchemas = oldSchemas
            if let models { newSchemas = Dictionary(uniqueKeysWithValues: models.objectSchema.map { ($0.className, $0) }) }
            objectSchemas = newSchemas
            // No handle observes the rows a migration rewrites (see `stopRecordingRowChanges`).
            transaction.stopRecordingRowChanges()
            let types = try configuration.objectTypes.map(SchemaDiscovery.modelTypes(for:)) ?? [:]
            let migration = Migration(realm: self, old: oldSchemas, new: newSchemas, modelTypes: types)
            try migration.applyAutomaticChanges()
            isMigrating = true
            defer { isMigrating = false }
            do {
                defer { migration.endBlock() }
                try configuration.migrationBlock?(migration, storedVersion)
            }
            try migration.finish()
            try SchemaStore.replaceSchema(with: Array(newSchemas.values), in: transaction)
            try SchemaStore.setVersion(configuration.schemaVersion, in: transaction)
            try commitWrite()
            objectSchemas = newSchemas
            retireClassInfos()
        } catch {
            objectSchemas = schemasBefore
            // What the block was handed read a version and a schema the file does not keep:
            // invalidated (the write cancelled with it), and the class infos of the new schema
            // forgotten. Objects it kept keep this handle alive, though it never opened: its
            // claim on the schema version goes now, not at its end.
            invalidate()
            retireClassInfos()
            releaseSchemaVersionClaim()
            throw error
        }
    }

    /// Takes the write lock for a migration, waiting at most `openTimeout` for a writer that
    /// holds it (another process migrating the same file, or writing).
    private func beginMigrationWrite() throws {
        let deadline = ContinuousClock.now + configuration.openTimeout
        var delay: UInt32 = 20
        while true {
            if let transaction = try RealmError.translating({ try database.tryBeginWrite(joiningGroup: false) }) {
                start(transaction)
                return
            }
            guard ContinuousClock.now < deadline else {
                throw RealmError(code: .timedOut, message: "the realm needs a migration to schema version \(configuration.schemaVersion), and another handle or process held its write lock for longer than openTimeout (\(configuration.openTimeout)); try again once it has finished, or raise openTimeout")
            }
            usleep(delay)
            delay = min(delay * 2, 1000)
        }
    }
}
