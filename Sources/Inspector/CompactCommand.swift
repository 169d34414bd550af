import AsyncRealm
import Foundation
import StorageEngine

/// `asyncrealm compact FILE`: the file rewritten with only its live data.
enum CompactCommand {
    static let command = Inspector.Command(
        name: "compact", summary: "rewrite the file with only its live data, as shouldCompactOnLaunch does",
        help: """
        USAGE: asyncrealm compact FILE [--key-file PATH]

        Writes a compacted copy of the file beside it (FILE.compacting), syncs it, and renames
        it over the file: interrupted at any moment, the file is the old one or the compacted
        one, whole. The file must not be open in any process. Prints the sizes before and after.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions, flags: [])
        let file = try RealmFile(path: try parsed.positionals(1, 1, naming: "the realm file")[0], arguments: parsed)
        try file.checkExists()
        let before = try size(of: file.path)
        let progress = ProgressBar("compact")
        let compacted: Bool
        do {
            let key = try file.key.map { try EncryptionKey(Array($0)) }
            compacted = try Database.compactOnFirstOpen(atPath: file.path, encryptionKey: key, progress: { progress.update($0, of: $1) }) { _, _ in true }
        } catch let error as StorageError {
            progress.finish()
            throw file.failure(RealmError(error))
        }
        progress.finish()
        guard compacted else {
            throw InspectorFailure.file("'\(file.path)' is open in another process; close it there and run compact again")
        }
        let after = try size(of: file.path)
        Output.standard.write("compacted '\(file.path)': \(InfoCommand.bytes(before)) before, \(InfoCommand.bytes(after)) after\n")
        return .success
    }

    private static func size(of path: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    }
}
