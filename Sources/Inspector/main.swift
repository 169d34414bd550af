// `asyncrealm`: to a realm file what `sqlite3` is to a SQLite file. It reads the schema from
// the file, so it needs none of the app's model classes. See `asyncrealm --help`.
import AsyncRealm
import Glibc

// A page that fails its checksum while objects are read (query, export) is a failure of the
// file, reported as one: the library would otherwise stop the program there.
damagedFileHandler = { message in
    Output.standard.flush()
    Output.error.write("asyncrealm: \(message)\nRun 'asyncrealm verify FILE' to list the damaged pages.\n")
    Output.error.flush()
    exit(ExitStatus.fileProblem.rawValue)
}
exit(Inspector.run(Array(CommandLine.arguments.dropFirst())).rawValue)
