import Foundation
import StorageEngine

extension Realm {
    /// The errors a realm throws, as RealmSwift names them: `catch let error as Realm.Error`,
    /// `error.code == .fileNotFound`, or `catch Realm.Error.fileNotFound`.
    public typealias Error = RealmError
}

/// An error the environment or the data caused: a stable `code` and a message a person can act on.
///
/// RealmSwift's name for it is `Realm.Error`, and its codes carry RealmSwift's names where
/// RealmSwift has one (`fileAccess`, `filePermissionDenied`, `invalidDatabase`, ...). The
/// storage engine's errors reach users only through this type, so its codes are the public
/// contract. `localizedDescription` is the message.
public struct RealmError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What went wrong, stable across releases.
    public enum Code: String, Sendable, CaseIterable {
        /// A failure no other code describes.
        case fail
        /// The file failed a checksum or a structural check, is truncated, or is not a realm file.
        case invalidDatabase
        /// The operating system reported an I/O error reading or writing the file.
        case fileAccess
        /// The disk or quota is full.
        case diskFull
        /// The file does not exist.
        case fileNotFound
        /// A file that must not exist yet does (the destination of a copy).
        case fileExists
        /// The file or its lock file cannot be opened with the access asked for.
        case filePermissionDenied
        /// A primary key or other unique value is already taken.
        case duplicatePrimaryKey
        /// A write was attempted on a read-only realm.
        case readOnly
        /// An object type the file does not have was asked for.
        case noSuchObjectType
        /// A model class is invalid (two primary keys, an option its type cannot have, a
        /// `LinkingObjects` whose origin property does not link back).
        case invalidSchema
        /// A value cannot be turned into what was asked (an ObjectId from a bad string).
        case invalidValue
        /// The file's stored schema differs from the models in more than added types.
        case schemaMismatch
        /// A configuration option that this version does not support yet was set.
        case unsupportedConfiguration
        /// A value is beyond what the file format can hold (a list longer than 2^32 elements).
        case limitExceeded
        /// A query that cannot be parsed, names an unknown property or compares values of
        /// types that do not compare; `position` says where in the predicate string.
        case invalidQuery
        /// Another process kept the file from being opened for longer than
        /// `Configuration.openTimeout` (it keeps commits it has not shared, and does not run:
        /// stopped with SIGSTOP or Ctrl-Z, or hung). Try again once it runs, or ends.
        case timedOut
        /// The file's schema version is higher than the configuration's `schemaVersion`, or
        /// the file is already open in this process with another schema version.
        case invalidSchemaVersion
        /// The file is open, in this process or another, where that is not allowed: it cannot
        /// be deleted (`deleteRealmIfMigrationNeeded`) while any handle has it open.
        case alreadyOpen
        /// The encryption key does not open the file: it is another key, it is not 64 bytes
        /// long, the file is encrypted and no key was given, or it is not and one was.
        case invalidEncryptionKey
        /// The file was written in another file format version than this build reads. There is
        /// no conversion between formats yet: open it with the version that wrote it.
        case fileFormatUpgradeRequired
    }

    /// What went wrong: stable across releases, for code to switch on.
    public let code: Code
    /// What went wrong and what to do, for people (the same as `localizedDescription`).
    public let message: String
    /// The file offset at which corruption was detected, when there is one.
    public let offset: UInt64?
    /// For `invalidQuery`: the character position in the predicate string of the problem.
    public let position: Int?

    public var description: String { message }

    /// The message: what went wrong and what to do.
    public var errorDescription: String? { message }

    init(code: Code, message: String, offset: UInt64? = nil, position: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.position = position
    }

    /// The public form of an engine error; the engine's message is kept word for word.
    package init(_ error: StorageError) {
        let code: Code
        switch error.code {
        case .fileCorrupted: code = .invalidDatabase
        case .ioError: code = .fileAccess
        case .diskFull: code = .diskFull
        case .fileNotFound: code = .fileNotFound
        case .permissionDenied: code = .filePermissionDenied
        case .duplicateKey: code = .duplicatePrimaryKey
        case .readOnly: code = .readOnly
        case .noSuchTable: code = .noSuchObjectType
        case .timedOut: code = .timedOut
        case .alreadyOpen: code = .alreadyOpen
        case .fileExists: code = .fileExists
        case .invalidEncryptionKey: code = .invalidEncryptionKey
        case .unsupportedFormat: code = .fileFormatUpgradeRequired
        }
        self.init(code: code, message: error.message, offset: error.offset)
    }

    /// Runs `body`, turning engine errors into `RealmError`s.
    static func translating<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as StorageError {
            throw RealmError(error)
        }
    }
}

// `catch Realm.Error.fileNotFound { }`, as with RealmSwift: each code as a static member of the
// error, and a pattern that matches an error of that code.
extension RealmError {
    /// `Code.fail`, for `catch Realm.Error.fail`.
    public static var fail: Code { .fail }
    /// `Code.invalidDatabase`, for `catch Realm.Error.invalidDatabase`.
    public static var invalidDatabase: Code { .invalidDatabase }
    /// `Code.fileAccess`, for `catch Realm.Error.fileAccess`.
    public static var fileAccess: Code { .fileAccess }
    /// `Code.diskFull`, for `catch Realm.Error.diskFull`.
    public static var diskFull: Code { .diskFull }
    /// `Code.fileNotFound`, for `catch Realm.Error.fileNotFound`.
    public static var fileNotFound: Code { .fileNotFound }
    /// `Code.fileExists`, for `catch Realm.Error.fileExists`.
    public static var fileExists: Code { .fileExists }
    /// `Code.invalidEncryptionKey`, for `catch Realm.Error.invalidEncryptionKey`.
    public static var invalidEncryptionKey: Code { .invalidEncryptionKey }
    /// `Code.fileFormatUpgradeRequired`, for `catch Realm.Error.fileFormatUpgradeRequired`.
    public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
    /// `Code.filePermissionDenied`, for `catch Realm.Error.filePermissionDenied`.
    public static var filePermissionDenied: Code { .filePermissionDenied }
    /// `Code.duplicatePrimaryKey`, for `catch Realm.Error.duplicatePrimaryKey`.
    public static var duplicatePrimaryKey: Code { .duplicatePrimaryKey }
    /// `Code.readOnly`, for `catch Realm.Error.readOnly`.
    public static var readOnly: Code { .readOnly }
    /// `Code.noSuchObjectType`, for `catch Realm.Error.noSuchObjectType`.
    public static var noSuchObjectType: Code { .noSuchObjectType }
    /// `Code.invalidSchema`, for `catch Realm.Error.invalidSchema`.
    public static var invalidSchema: Code { .invalidSchema }
    /// `Code.invalidValue`, for `catch Realm.Error.invalidValue`.
    public static var invalidValue: Code { .invalidValue }
    /// `Code.schemaMismatch`, for `catch Realm.Error.schemaMismatch`.
    public static var schemaMismatch: Code { .schemaMismatch }
    /// `Code.unsupportedConfiguration`, for `catch Realm.Error.unsupportedConfiguration`.
    public static var unsupportedConfiguration: Code { .unsupportedConfiguration }
    /// `Code.limitExceeded`, for `catch Realm.Error.limitExceeded`.
    public static var limitExceeded: Code { .limitExceeded }
    /// `Code.invalidQuery`, for `catch Realm.Error.invalidQuery`.
    public static var invalidQuery: Code { .invalidQuery }
    /// `Code.timedOut`, for `catch Realm.Error.timedOut`.
    public static var timedOut: Code { .timedOut }
    /// `Code.invalidSchemaVersion`, for `catch Realm.Error.invalidSchemaVersion`.
    public static var invalidSchemaVersion: Code { .invalidSchemaVersion }
    /// `Code.alreadyOpen`, for `catch Realm.Error.alreadyOpen`.
    public static var alreadyOpen: Code { .alreadyOpen }
}

extension RealmError.Code {
    /// Whether `error` is a `RealmError` with this code: the pattern of
    /// `catch Realm.Error.fileNotFound`.
    public static func ~= (code: RealmError.Code, error: any Error) -> Bool {
        (error as? RealmError)?.code == code
    }
}
