import StorageEngine

/// An error the environment or the data caused: a stable `code` and a message a person can act on.
///
/// The object layer will expose it as `Realm.Error`, as RealmSwift does; the storage engine's
/// errors reach users only through this type, so its codes are the public contract.
public struct RealmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public enum Code: String, Sendable, CaseIterable {
        /// The file failed a checksum or a structural check, is truncated, or is not a realm file.
        case fileCorrupted
        /// The operating system reported an I/O error.
        case ioError
        /// The disk or quota is full.
        case diskFull
        /// The file does not exist.
        case fileNotFound
        /// The file or its lock file cannot be opened with the access asked for.
        case permissionDenied
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
    }

    public let code: Code
    public let message: String
    /// The file offset at which corruption was detected, when there is one.
    public let offset: UInt64?
    /// For `invalidQuery`: the character position in the predicate string of the problem.
    public let position: Int?

    public var description: String { message }

    init(code: Code, message: String, offset: UInt64? = nil, position: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.position = position
    }

    /// The public form of an engine error; the engine's message is kept word for word.
    init(_ error: StorageError) {
        let code: Code
        switch error.code {
        case .fileCorrupted: code = .fileCorrupted
        case .ioError: code = .ioError
        case .diskFull: code = .diskFull
        case .fileNotFound: code = .fileNotFound
        case .permissionDenied: code = .permissionDenied
        case .duplicateKey: code = .duplicatePrimaryKey
        case .readOnly: code = .readOnly
        case .noSuchTable: code = .noSuchObjectType
        case .timedOut: code = .timedOut
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
