/// The exit statuses of `asyncrealm`, as `--help` documents them.
enum ExitStatus: Int32 {
    /// The command did what was asked (`verify`: the file is sound).
    case success = 0
    /// `verify` found damage: the pages and what they hold are printed.
    case damaged = 1
    /// The command line is wrong: an unknown command or option, a missing argument, a class
    /// the file does not have, a predicate that does not parse.
    case usage = 2
    /// The file could not be read or written: missing, not a realm file, encrypted with
    /// another key, damaged past opening, open in another process (compact), out of space.
    case fileProblem = 3
}

/// A failure the inspector reports on stderr, in the user's words, with its exit status.
struct InspectorFailure: Error {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> InspectorFailure { InspectorFailure(status: .usage, message: message) }
    static func file(_ message: String) -> InspectorFailure { InspectorFailure(status: .fileProblem, message: message) }
}
