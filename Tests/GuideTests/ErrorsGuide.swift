import AsyncRealm
import Foundation
@testable import StorageEngine
import Testing
import TestSupport

// The examples of Docs/Errors.md: each code the guide shows a message for is provoked here, and
// the message must be the guide's, word for word (the test's directory written /path/to).

final class Ticket: Object {
    @Persisted(primaryKey: true) var number: Int
    @Persisted var title: String
}

enum ErrorsGuideV2 {
    final class Ticket: Object {
        @Persisted(primaryKey: true) var number: Int
        @Persisted var title: String
        @Persisted var priority: Int
    }
}

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a: Int
    @Persisted(primaryKey: true) var b: Int
}

func openTickets(_ url: URL) -> Result<Realm, Error> {
    do {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Ticket.self]))
        return .success(realm)
    } catch let error as Realm.Error {
        switch error.code {
        case .schemaMismatch, .invalidSchemaVersion:
            print("the app's models and the file disagree:", error.message)
        case .invalidDatabase:
            print("the file is damaged or not a realm:", error.message)
        default:
            print(error.code, error.message)
        }
        return .failure(error)
    } catch {
        return .failure(error)
    }
}

@Suite("Docs/Errors.md")
struct ErrorsGuide {
    /// The guide's example message for each code (from lines "Example: `...`" under "### `code`").
    static func documentedMessages() throws -> [RealmError.Code: String] {
        let guide = try String(contentsOf: GuideExamplesTests.root.appendingPathComponent("Docs/Errors.md"), encoding: .utf8)
        var messages: [RealmError.Code: String] = [:]
        var code: RealmError.Code?
        for line in guide.split(separator: "\n") {
            if line.hasPrefix("### `") { code = RealmError.Code(rawValue: String(line.dropFirst(5).prefix { $0 != "`" })) }
            if let code, line.hasPrefix("Example: `") { messages[code] = String(line.dropFirst(10).dropLast(1)) }
        }
        return messages
    }

    /// Runs `body`, which must throw a `RealmError` of `code`, and returns its message.
    static func message(
        _ code: RealmError.Code, in directory: TemporaryDirectory, alsoAt other: String? = nil, _ body: () throws -> Void
    ) -> String? {
        do {
            try body()
            Issue.record("no \(code) error")
        } catch let error as RealmError {
            #expect(error.code == code, "\(error)")
            var message = error.message.replacingOccurrences(of: directory.url.path, with: "/path/to")
            if let other { message = message.replacingOccurrences(of: other, with: "/path/to") }
            return String(message.prefix { $0 != "\n" })
        } catch {
            Issue.record("\(error)")
        }
        return nil
    }

    @Test("the guide has a section for every code")
    func everyCode() throws {
        let guide = try String(contentsOf: GuideExamplesTests.root.appendingPathComponent("Docs/Errors.md"), encoding: .utf8)
        let sections = guide.components(separatedBy: "\n### `").dropFirst()
        for code in RealmError.Code.allCases {
            let section = sections.first { $0.hasPrefix(code.rawValue + "`") }
            #expect(section != nil, "Docs/Errors.md has no section for \(code)")
            #expect(section?.contains("What to do:") == true, "Docs/Errors.md does not say what to do about \(code)")
        }
    }

    /// Rewrites both header slots of the plain file at `url` as written in format `format`,
    /// their checksums made to match: a file an older build wrote.
    static func rewriteFormatVersion(of url: URL, to format: UInt32) throws {
        var bytes = try Data(contentsOf: url)
        for offset in FileHeader.slotOffsets.map(Int.init) {
            var slot = [UInt8](bytes[offset..<(offset + FileHeader.slotBytes)])
            slot.withUnsafeMutableBytes { $0.storeBytes(of: format.littleEndian, toByteOffset: 16, as: UInt32.self) }
            let checksum = slot.withUnsafeBytes { FileHeader.checksum($0, at: UInt64(offset)) }
            slot.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
            bytes.replaceSubrange(offset..<(offset + FileHeader.slotBytes), with: slot)
        }
        try bytes.write(to: url)
        for suffix in [".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    @Test("each example message is the one the error gives")
    func examples() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("tickets.realm")
        var seen: [RealmError.Code: String?] = [:]
        seen[.fileNotFound] = Self.message(.fileNotFound, in: directory) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [Ticket.self]))
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Ticket.self]))
        try realm.write { realm.create(Ticket.self, value: ["number": 1, "title": "a"]) }
        seen[.duplicatePrimaryKey] = Self.message(.duplicatePrimaryKey, in: directory) {
            try realm.write { _ = realm.create(Ticket.self, value: ["number": 1, "title": "b"]) }
        }
        seen[.fileExists] = Self.message(.fileExists, in: directory) { try realm.writeCopy(toFile: url) }
        seen[.alreadyOpen] = Self.message(.alreadyOpen, in: directory) {
            _ = try Realm.deleteFiles(for: Realm.Configuration(fileURL: url, objectTypes: [Ticket.self]))
        }
        seen[.invalidQuery] = Self.message(.invalidQuery, in: directory) { _ = try RealmPredicate("number >> 3") }
        seen[.invalidValue] = Self.message(.invalidValue, in: directory) { _ = try ObjectId(string: "12ab") }
        seen[.invalidSchema] = Self.message(.invalidSchema, in: directory) {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-guide", objectTypes: [TwoKeys.self]))
        }
        seen[.unsupportedConfiguration] = Self.message(.unsupportedConfiguration, in: directory) {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "errors-guide", readOnly: true))
        }
        seen[.invalidEncryptionKey] = Self.message(.invalidEncryptionKey, in: directory) {
            let plain = directory.file("plain.realm")
            _ = try Realm(configuration: Realm.Configuration(fileURL: plain, objectTypes: [Ticket.self]))
            _ = try Realm(configuration: Realm.Configuration(fileURL: plain, encryptionKey: Data(count: 64), objectTypes: [Ticket.self]))
        }
        seen[.invalidSchemaVersion] = Self.message(.invalidSchemaVersion, in: directory) {
            let newer = directory.file("newer.realm")
            _ = try Realm(configuration: Realm.Configuration(fileURL: newer, schemaVersion: 2, objectTypes: [Ticket.self]))
            _ = try Realm(configuration: Realm.Configuration(fileURL: newer, schemaVersion: 1, objectTypes: [Ticket.self]))
        }
        if let seedDirectory = ReadOnlyDirectory(copying: []) {
            seen[.filePermissionDenied] = Self.message(.filePermissionDenied, in: directory, alsoAt: seedDirectory.url.path) {
                _ = try Realm(configuration: Realm.Configuration(fileURL: seedDirectory.url.appendingPathComponent("seed.realm")))
            }
        }
        let readOnly = try Realm(configuration: Realm.Configuration(fileURL: directory.file("copy.realm"), objectTypes: [Ticket.self]))
        seen[.readOnly] = Self.message(.readOnly, in: directory) {
            let reader = try Realm(configuration: Realm.Configuration(fileURL: directory.file("copy.realm"), readOnly: true, objectTypes: [Ticket.self]))
            try reader.write { _ = reader.create(Ticket.self, value: ["number": 2]) }
        }
        _ = readOnly
        seen[.limitExceeded] = Self.message(.limitExceeded, in: directory) {
            var configuration = Realm.Configuration(fileURL: directory.file("versions.realm"), objectTypes: [Ticket.self])
            configuration.maximumNumberOfActiveVersions = 2
            let limited = try Realm(configuration: configuration)
            let frozen = [limited.freeze()]
            try limited.write { _ = limited.create(Ticket.self, value: ["number": 1]) }
            let more = frozen + [limited.freeze()]
            try limited.write { _ = limited.create(Ticket.self, value: ["number": 2]) }
            _ = more
        }
        withExtendedLifetime(realm) {}
        seen[.schemaMismatch] = Self.message(.schemaMismatch, in: directory) {
            let other = directory.file("mismatch.realm")
            _ = try Realm(configuration: Realm.Configuration(fileURL: other, objectTypes: [Ticket.self]))
            _ = try Realm(configuration: Realm.Configuration(fileURL: other, objectTypes: [ErrorsGuideV2.Ticket.self]))
        }
        let older = directory.file("older.realm")
        do {
            let olderRealm = try Realm(configuration: Realm.Configuration(fileURL: older, objectTypes: [Ticket.self]))
            try olderRealm.write { olderRealm.create(Ticket.self, value: ["number": 1, "title": "a"]) }
        }
        try Self.rewriteFormatVersion(of: older, to: FileHeader.formatVersion - 1)
        seen[.fileFormatUpgradeRequired] = Self.message(.fileFormatUpgradeRequired, in: directory) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: older, objectTypes: [Ticket.self]))
        }
        try Data(repeating: 1, count: 10_000).write(to: directory.file("garbage.realm"))
        seen[.invalidDatabase] = Self.message(.invalidDatabase, in: directory) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: directory.file("garbage.realm")))
        }
        if case .failure = openTickets(directory.file("garbage.realm")) {} else { Issue.record("a garbage file opened") }

        let documented = try Self.documentedMessages()
        for (code, message) in seen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("\(code.rawValue): \(message ?? "-")")
            #expect(documented[code] == message, "Docs/Errors.md's example for \(code) is not the message given:\n\(message ?? "-")")
        }
    }
}
