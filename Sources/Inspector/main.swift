// `asyncrealm`: to a realm file what `sqlite3` is to a SQLite file. It reads the schema from
// the file, so it needs none of the app's model classes. See `asyncrealm --help`.
import Glibc

exit(Inspector.run(Array(CommandLine.arguments.dropFirst())).rawValue)
