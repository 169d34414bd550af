/// An error the environment or the data caused, with a stable code and a message a person can act on.
///
/// The engine never crashes on bad bytes: a checksum mismatch, a truncated file, a foreign file or an
/// impossible length inside a page all surface as `fileCorrupted` naming the offset where it was seen.
package struct StorageError: Error, Sendable, CustomStringConvertible, Equatable {
    package enum Code: String, Sendable {
        /// Stored bytes failed a check: checksum, length, magic number or structure.
        case fileCorrupted
        /// The operating system reported an I/O failure (`EIO` and friends).
        case ioError
        /// The disk is full (`ENOSPC`, `EDQUOT`).
        case diskFull
        /// The file does not exist and creation was not requested.
        case fileNotFound
        /// The file or its lock file cannot be opened with the access requested.
        case permissionDenied
        /// A unique index already holds the value.
        case duplicateKey
        /// A write was attempted through a read-only handle.
        case readOnly
        /// A table or index was used that the catalog does not have.
        case noSuchTable
        /// Another process kept the file from being opened for longer than allowed (it keeps
        /// commits in its redo log, and does not run to share them: stopped, or hung).
        case timedOut
        /// The file is open (in this process or another) where it must not be: it cannot be
        /// deleted or replaced then.
        case alreadyOpen
        /// A file that must not exist yet does (the destination of a copy).
        case fileExists
        /// The encryption key is not the file's: the wrong key, a key of the wrong length, no
        /// key for an encrypted file, or a key for a plain one.
        case invalidEncryptionKey
        /// The file is an AsyncRealm file of another format version than this build reads.
        case unsupportedFormat
    }

    package var code: Code
    package var message: String
    /// The file offset at which corruption was detected, when there is one.
    package var offset: UInt64?
    /// For `duplicateKey`: where the value already is, so that the object layer can name the
    /// class and property it stands for.
    package var duplicate: Duplicate?

    /// A value a unique index holds already.
    package struct Duplicate: Sendable, Equatable {
        package let table: String
        package let column: Int
        package let value: RowValue
    }

    package init(_ code: Code, _ message: String, offset: UInt64? = nil, duplicate: Duplicate? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.duplicate = duplicate
    }

    package static func corrupted(_ message: String, at offset: UInt64) -> StorageError {
        StorageError(.fileCorrupted, "\(message) (at offset \(offset))", offset: offset)
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
