import AsyncRealm
import Foundation
import StorageEngine

/// `asyncrealm info FILE`: what the file is and what it holds.
enum InfoCommand {
    static let command = Inspector.Command(
        name: "info", summary: "format, versions, sizes, encryption, and each class with its object count",
        help: """
        USAGE: asyncrealm info FILE [--key-file PATH]

        Prints the file's format version and schema version, its current version (the count of
        commits it has seen), its size, the bytes its data uses and the bytes free for reuse,
        whether it is encrypted, and each class with its number of objects.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions, flags: [])
        let file = try RealmFile(path: try parsed.positionals(1, 1, naming: "the realm file")[0], arguments: parsed)
        let realm = try file.openRealm()
        let database = realm.storageDatabase
        let (total, used) = try database.spaceUsage()
        let schemaVersion = try schemaVersionAtURL(URL(fileURLWithPath: file.path), encryptionKey: file.key)
        var lines: [(String, String)] = [
            ("file", file.path),
            ("format version", "\(FileHeader.formatVersion)"),
            ("schema version", "\(schemaVersion)"),
            ("current version", "\(try database.newestVersion())"),
            ("file size", bytes(total)),
            ("live bytes", bytes(used)),
            ("free bytes", bytes(total - min(used, total))),
            ("encrypted", file.key == nil ? "no" : "yes (AES-256-CTR, HMAC-SHA-256)"),
        ]
        let classes = realm.schema.objectSchema
        lines.append(("classes", classes.isEmpty ? "none" : "\(classes.count)"))
        let width = lines.map(\.0.count).max()! + 2
        for (name, value) in lines {
            Output.standard.write((name + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value + "\n")
        }
        let nameWidth = classes.map(\.className.count).max() ?? 0
        for objectSchema in classes {
            let count = realm.dynamicObjects(objectSchema.className).count
            Output.standard.write("  " + objectSchema.className.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
                + "\(count) object\(count == 1 ? "" : "s")\n")
        }
        return .success
    }

    /// `count` bytes, with a readable size beside the exact number.
    static func bytes(_ count: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = -1
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit < 0 ? "\(count) bytes" : String(format: "%.1f %@ (%llu bytes)", value, units[unit], count)
    }
}
