import AsyncRealm
import StorageEngine

/// `asyncrealm verify FILE`: every page's checksum and every tree's structure.
enum VerifyCommand {
    static let command = Inspector.Command(
        name: "verify", summary: "check every page's checksum and every tree's structure",
        help: """
        USAGE: asyncrealm verify FILE [--key-file PATH]

        Reads every page of the file's newest version from disk and checks its checksum (and,
        encrypted, its authentication code), the structure of every tree (the objects of each
        class, each index, each list), and that the pages and the free space cover the file
        exactly once. Commits still in the .log file beside it are checked as they are read.

        Prints 'ok' and exits 0 for a sound file; otherwise lists each damaged page (its offset
        in the file, what it holds, what is wrong) and exits 1.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions, flags: [])
        let file = try RealmFile(path: try parsed.positionals(1, 1, naming: "the realm file")[0], arguments: parsed)
        let database: Database
        do {
            database = try file.openDatabase()
        } catch let failure as InspectorFailure {
            // Damage found before any page could be walked (the header, or the log) is damage.
            guard failure.message.contains("not a readable realm file") else { throw failure }
            Output.standard.write("damaged: \(failure.message)\n")
            return .damaged
        }
        let schema = try? file.openRealm().schema
        let progress = ProgressBar("verify")
        let verification = try database.verify { progress.update($0, of: $1) }
        progress.finish()
        for damage in verification.damage {
            let holder = StoredTableDescription.describe(table: damage.table, structure: damage.structure, schema: schema)
            Output.standard.write("damaged: page at offset \(damage.offset) (\(holder)): \(damage.reason)\n")
        }
        let summary = "version \(verification.version): \(verification.pagesChecked) pages in \(verification.treesChecked) trees checked"
        if verification.damage.isEmpty {
            Output.standard.write("ok: \(summary), no damage\n")
            return .success
        }
        Output.standard.write("\(verification.damage.count) problem\(verification.damage.count == 1 ? "" : "s") found; \(summary)\n")
        return .damaged
    }
}
