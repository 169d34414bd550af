import StorageEngine
import Foundation

extension Realm {
    /// What a realm opens: where it lives and how, with RealmSwift's fields.
    ///
    /// Every field works; none is ignored.
    public struct Configuration: @unchecked Sendable {
        // @unchecked: every stored property is a value type or a @Sendable closure, except
        // `objectTypes`, whose metatypes carry no mutable state.

        /// The file the realm is stored in; nil when `inMemoryIdentifier` is set. Setting one
        /// clears the other.
        public var fileURL: URL? {
            get { storedFileURL }
            set {
                storedFileURL = newValue
                if newValue != nil { storedInMemoryIdentifier = nil }
            }
        }

        /// Names a realm kept in memory only, shared by every handle in this process that uses
        /// the same identifier and gone when the last one closes.
        public var inMemoryIdentifier: String? {
            get { storedInMemoryIdentifier }
            set {
                storedInMemoryIdentifier = newValue
                if newValue != nil { storedFileURL = nil }
            }
        }

        /// A 64-byte key the file is encrypted with, or nil for a plain file.
        ///
        /// Every page of the file and every record of its redo log is encrypted (AES-256) and
        /// authenticated (HMAC-SHA-256); see `Docs/Encryption.md`. The first 32 bytes are the
        /// encryption key, the last 32 the authentication key. Opening a file with another key
        /// throws `invalidEncryptionKey`, as does a key of another length, no key for an
        /// encrypted file or a key for a plain one. Keep the key somewhere safe: a lost key
        /// loses the data.
        public var encryptionKey: Data?
        /// Open the file for reading only: writes throw, and the file must exist.
        public var readOnly: Bool
        /// The version of the models, stored in the file. Raise it whenever the models change:
        /// opening a file of a lower version migrates it (see `migrationBlock` and
        /// `Docs/Migrations.md`); a file of a higher version throws `invalidSchemaVersion`.
        public var schemaVersion: UInt64
        /// Runs once when a file of a lower `schemaVersion` is opened, after the automatic
        /// changes, to convert what they cannot (see `Migration`). If it throws, opening throws
        /// that error and the file is left as it was.
        public var migrationBlock: MigrationBlock?
        /// Delete the file (and its `.lock` and `.log` files) and open a new one whenever its
        /// schema version or schema differs from this configuration's, instead of migrating it.
        /// Opening throws `alreadyOpen` while another handle has the file open.
        public var deleteRealmIfMigrationNeeded: Bool
        /// Decides from (file size, bytes in use) whether to compact the file when it is opened.
        ///
        /// Asked on the first open of the file in this process, and only while no other process
        /// has it open (it is not asked otherwise, nor for in-memory or read-only realms).
        /// Returning true rewrites the file with only its live data, freshly packed: a
        /// compacted copy is written beside it, synced and renamed over it, so a crash at any
        /// moment leaves the old file or the compacted one, whole.
        public var shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)?
        /// The model classes of the realm. When nil, a class and those it links to are
        /// registered the first time they are used.
        public var objectTypes: [Object.Type]?
        /// The most versions of the file this process may keep readable at once (pinned by
        /// realms, frozen values, thread-safe references and change streams): a commit that
        /// would exceed it throws `limitExceeded`. Nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?
        /// A realm file copied to `fileURL` when a realm is opened there and no file exists yet:
        /// the data an app ships to start from. Nothing is copied while a file exists at
        /// `fileURL`. The seed is opened read-only and written to `fileURL` as a compacted copy
        /// (as `writeCopy(toFile:)` writes one), linked into place once whole, so it needs the
        /// configuration's `encryptionKey` if it has one, and a missing seed throws
        /// `fileNotFound`. Ignored for an in-memory realm.
        public var seedFilePath: URL?

        /// How long opening the file may wait for another process that keeps it to itself: one
        /// that keeps commits in its redo log shares the file within milliseconds when asked,
        /// unless it does not run (stopped with SIGSTOP or Ctrl-Z, or hung). Past this, opening
        /// throws `timedOut`. Ten seconds by default. (The first handle on a file in the
        /// process decides.)
        public var openTimeout: Duration = .seconds(10)

        /// The capacity of the file's page cache (set by tests that measure memory, and by the
        /// inspector, which reads files once through; the first handle on a file in the
        /// process decides).
        package var pageCacheBytes = PageCache.defaultCapacityBytes

        /// The file to open instead of `fileURL` or the in-memory database (set by tests that
        /// inject faults into the file's writes). Set `inMemoryIdentifier` too: it names the
        /// realm's coordinator.
        var file: (any FileIO)?

        private var storedFileURL: URL?
        private var storedInMemoryIdentifier: String?

        /// A configuration; each parameter sets the property of the same name.
        ///
        /// - Parameters:
        ///   - fileURL: The realm's file; `default.realm` in the current directory by default.
        ///   - inMemoryIdentifier: Names an in-memory realm instead of a file (it lives while a
        ///     handle on it does).
        ///   - encryptionKey: 64 bytes that encrypt the file, or nil.
        ///   - readOnly: Opens the file for reading only.
        ///   - schemaVersion: The version of the models; raise it when they change.
        ///   - migrationBlock: Migrates objects from an older schema version.
        ///   - deleteRealmIfMigrationNeeded: Deletes the file instead of migrating it.
        ///   - shouldCompactOnLaunch: Asked on the first open with the file's size and the bytes
        ///     in use; returning true compacts the file.
        ///   - objectTypes: The model classes the realm holds; nil for classes registered on first use.
        ///   - maximumNumberOfActiveVersions: The most versions kept readable at once, or nil.
        ///   - seedFilePath: A realm file copied to `fileURL` when no file is there yet.
        public init(
            fileURL: URL? = Configuration.defaultFileURL,
            inMemoryIdentifier: String? = nil,
            encryptionKey: Data? = nil,
            readOnly: Bool = false,
            schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil,
            deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil,
            objectTypes: [Object.Type]? = nil,
            maximumNumberOfActiveVersions: UInt? = nil,
            seedFilePath: URL? = nil
        ) {
            storedFileURL = fileURL
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.seedFilePath = seedFilePath
            if let inMemoryIdentifier { self.inMemoryIdentifier = inMemoryIdentifier }
        }

        /// `default.realm` in the current directory.
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        private static let defaultStore = Locked(Configuration())

        /// The configuration `Realm()` opens. Safe to read and set from any thread.
        public static var defaultConfiguration: Configuration {
            get { defaultStore.withLock { $0 } }
            set { defaultStore.withLock { $0 = newValue } }
        }

        /// The engine's form of `encryptionKey`.
        ///
        /// - Throws: `invalidEncryptionKey` for a key that is not 64 bytes long.
        func storageEncryptionKey() throws -> EncryptionKey? {
            try RealmError.translating { try encryptionKey.map { try EncryptionKey(Array($0)) } }
        }

        /// Throws for options that cannot go together, and for a key of the wrong length.
        func checkSupported() throws {
            _ = try storageEncryptionKey()
            if readOnly && deleteRealmIfMigrationNeeded {
                throw RealmError(code: .unsupportedConfiguration, message: "a read-only realm cannot be deleted when it needs a migration; set readOnly or deleteRealmIfMigrationNeeded, not both")
            }
            if fileURL == nil && inMemoryIdentifier == nil {
                throw RealmError(code: .unsupportedConfiguration, message: "the configuration has neither a fileURL nor an inMemoryIdentifier; set one")
            }
        }
    }

    /// Migrates a realm from `oldSchemaVersion`, the version stored in the file (see `Migration`).
    public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) throws -> Void
}
