import AsyncRealm
import Foundation
import StorageEngine

/// The realm file a command works on: its path and encryption key, opened read-only.
struct RealmFile {
    /// The options every command takes.
    static let valuedOptions: Set<String> = ["--key-file"]
    static let keyEnvironmentVariable = "ASYNCREALM_ENCRYPTION_KEY"

    /// The page cache's capacity: commands read a file once through, in key order, where a
    /// cache larger than this saves nothing and an export of any size stays small.
    static let pageCacheBytes = 8 << 20

    let path: String
    let key: Data?

    /// The file named by `path`, with the key `--key-file` or the environment gives.
    ///
    /// - Throws: A failure when the key file cannot be read or holds no 64-byte key.
    init(path: String, arguments: Arguments) throws {
        self.path = path
        if let keyFile = arguments.value(of: "--key-file") {
            guard let contents = FileManager.default.contents(atPath: keyFile) else {
                throw InspectorFailure.file("cannot read the key file '\(keyFile)'")
            }
            key = try Self.key(from: contents, source: "the key file '\(keyFile)'")
        } else if let hex = ProcessInfo.processInfo.environment[Self.keyEnvironmentVariable] {
            key = try Self.key(from: Data(hex.utf8), source: Self.keyEnvironmentVariable)
        } else {
            key = nil
        }
    }

    /// A 64-byte key: the bytes themselves, or 128 hex digits (a trailing newline allowed).
    static func key(from contents: Data, source: String) throws -> Data {
        if contents.count == 64 { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var digits = text.utf8.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { break }
            bytes.append(value)
        }
        guard bytes.count == 64, text.utf8.count == 128 else {
            throw InspectorFailure.usage("\(source) holds no encryption key: it needs 64 bytes, or 128 hex digits")
        }
        return Data(bytes)
    }

    /// The realm, read-only, with the schema and schema version stored in the file.
    ///
    /// - Throws: A failure in the user's words when the file cannot be opened.
    func openRealm() throws -> Realm {
        try checkExists()
        do {
            let url = URL(fileURLWithPath: path)
            let version = try schemaVersionAtURL(url, encryptionKey: key)
            var configuration = Realm.Configuration(fileURL: url, encryptionKey: key, readOnly: true, schemaVersion: version)
            configuration.pageCacheBytes = Self.pageCacheBytes
            return try Realm(configuration: configuration)
        } catch let error as RealmError {
            throw failure(error)
        }
    }

    /// The engine's handle on the file, read-only.
    func openDatabase() throws -> Database {
        try checkExists()
        do {
            return try Database.open(path: path, create: false, readOnly: true, cacheBytes: Self.pageCacheBytes, encryptionKey: key.map { try EncryptionKey(Array($0)) })
        } catch let error as StorageError {
            throw failure(RealmError(error))
        }
    }

    func checkExists() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InspectorFailure.file("'\(path)' does not exist")
        }
        guard !isDirectory.boolValue else { throw InspectorFailure.file("'\(path)' is a directory, not a realm file") }
    }

    /// What to tell the user when `error` kept the file from opening.
    func failure(_ error: RealmError) -> InspectorFailure {
        switch error.code {
        case .invalidEncryptionKey where key == nil:
            return .file("'\(path)' is encrypted; give its key with --key-file PATH or \(Self.keyEnvironmentVariable)")
        case .invalidEncryptionKey:
            return .file("the key does not open '\(path)': \(error.message)")
        case .invalidDatabase:
            return .file("'\(path)' is not a readable realm file: \(error.message)")
        default:
            return .file("cannot open '\(path)': \(error.message)")
        }
    }

    /// The class named `name` in `realm`'s schema.
    ///
    /// - Throws: A usage failure listing the classes the file has.
    static func objectSchema(_ name: String, in realm: Realm) throws -> ObjectSchema {
        guard let schema = realm.schema[name] else {
            let classes = realm.schema.objectSchema.map(\.className)
            throw InspectorFailure.usage("the file has no class '\(name)'; its classes: \(classes.isEmpty ? "none" : classes.joined(separator: ", "))")
        }
        return schema
    }
}
