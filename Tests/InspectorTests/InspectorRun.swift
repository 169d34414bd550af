import Foundation
import Glibc
import TestSupport

/// One run of the built `asyncrealm`: its exit status, what it printed, and its peak memory.
struct InspectorRun {
    let status: Int32
    let output: String
    let errors: String
    /// The child's peak resident memory, in bytes.
    let peakResidentBytes: Int

    /// Runs `asyncrealm arguments...` (or another `executable`) with stdout and stderr going to files in `directory`
    /// (not terminals, not pipes that could fill), and waits for it.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], executable: String? = nil
    ) throws -> InspectorRun {
        let executable = try executable ?? childExecutablePath("asyncrealm")
        let outputPath = directory.appendingPathComponent("stdout-\(UUID())").path
        let errorPath = directory.appendingPathComponent("stderr-\(UUID())").path
        defer { unlink(outputPath); unlink(errorPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "ASYNCREALM_ENCRYPTION_KEY")
        merged.merge(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exited = status & 0x7f == 0
        return InspectorRun(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            output: try String(contentsOfFile: outputPath, encoding: .utf8),
            errors: try String(contentsOfFile: errorPath, encoding: .utf8),
            peakResidentBytes: usage.ru_maxrss * 1024)
    }
}
