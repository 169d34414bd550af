import Foundation

/// The `asyncrealm` command: finds the subcommand, runs it, and turns failures into a message
/// on stderr and an exit status.
enum Inspector {
    /// A subcommand: its name, its help, and what it does with its arguments.
    struct Command: Sendable {
        let name: String
        let summary: String
        let help: String
        let run: @Sendable ([String]) throws -> ExitStatus
    }

    static let commands: [Command] = [
        InfoCommand.command, SchemaCommand.command, QueryCommand.command,
        ExportCommand.command, VerifyCommand.command, CompactCommand.command,
    ]

    static func run(_ arguments: [String]) -> ExitStatus {
        guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
            if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                Output.standard.write(command.help)
            } else {
                Output.standard.write(overview)
            }
            Output.standard.flush()
            return arguments.isEmpty ? .usage : .success
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return fail(.usage("unknown command '\(name)'; the commands are \(commands.map(\.name).joined(separator: ", "))"))
        }
        var rest = Array(arguments.dropFirst())
        let stats = rest.contains("--stats")
        rest.removeAll { $0 == "--stats" }
        defer { if stats { reportStats() } }
        if rest.contains("--help") || rest.contains("-h") {
            Output.standard.write(command.help)
            Output.standard.flush()
            return .success
        }
        do {
            let status = try command.run(rest)
            Output.standard.flush()
            return status
        } catch let failure as InspectorFailure {
            Output.standard.flush()
            return fail(failure, command: command.name)
        } catch {
            Output.standard.flush()
            return fail(.file("\(error)"), command: command.name)
        }
    }

    /// Writes the process's peak memory and time to stderr (`--stats`).
    private static func reportStats() {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kilobytes = peak.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        Output.error.write("stats: peak memory \(kilobytes * 1024) bytes, cpu time \(String(format: "%.3f", seconds)) s\n")
        Output.error.flush()
    }

    private static func fail(_ failure: InspectorFailure, command: String? = nil) -> ExitStatus {
        var message = "asyncrealm: \(failure.message)\n"
        if failure.status == .usage {
            message += "Run 'asyncrealm \(command.map { "\($0) " } ?? "")--help' for how to use it.\n"
        }
        Output.error.write(message)
        Output.error.flush()
        return failure.status
    }

    static var overview: String {
        """
        asyncrealm: read, check and compact an AsyncRealm file without the app's model classes
        (the schema is read from the file).

        USAGE: asyncrealm COMMAND FILE [ARGUMENTS] [OPTIONS]

        COMMANDS:
        \(commands.map { "  " + $0.name.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        Every command takes --help; --stats, to print its peak memory and CPU time on stderr as
        it ends; and --key-file PATH for an encrypted file (the 64-byte key,
        raw or as 128 hex digits); the key may also come from the environment variable
        ASYNCREALM_ENCRYPTION_KEY (128 hex digits). Files are opened read-only, except by compact.

        Long runs (verify, export, compact) draw a progress bar on stderr when it is a terminal.

        EXIT STATUS:
          0  done (verify: no damage)
          1  verify found damage; the damaged pages are listed
          2  the command line is wrong (unknown option, missing argument, unknown class,
             a predicate that does not parse)
          3  the file could not be read or written (missing, not a realm file, wrong key,
             damaged past opening, open in another process, out of space)

        """
    }
}
