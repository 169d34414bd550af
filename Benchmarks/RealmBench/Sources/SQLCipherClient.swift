import Foundation

/// realm-bench's end of the SQLCipher peer process (`realm-bench-sqlcipher`): starts it, sends
/// it one command per workload turn and reads its timing back.
final class SQLCipherClient {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// Starts the peer on `directory` with the same rows as realm-bench's object workloads,
    /// building it first if it is not beside this executable. Nil, with a note printed, if it
    /// cannot be built or started.
    init?(directory: String, objectCount: Int, runs: Int, key: [UInt8]) {
        guard let executable = SQLCipherClient.peerExecutable() else { return nil }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [directory, String(objectCount), String(runs), key.map { String(format: "%02x", $0) }.joined()]
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch {
            print("note: could not start \(executable) (\(error)); no SQLCipher peer")
            return nil
        }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Sends `command` and returns the peer's seconds (and checksum) for it.
    @discardableResult
    func run(_ command: String) throws -> (seconds: Double, checksum: Int) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let line = try readLine()
        let fields = line.split(separator: " ")
        if command == "fresh", line == "ok" { return (0, 0) }
        guard fields.count == 2, let seconds = Double(fields[0]), let checksum = Int(fields[1]) else {
            throw SQLiteObjects.Failure(description: "sqlcipher peer answered '\(line)' to '\(command)'")
        }
        return (seconds, checksum)
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw SQLiteObjects.Failure(description: "the sqlcipher peer ended") }
            buffered.append(more)
        }
    }

    /// The peer beside this executable, built there (same configuration) if missing.
    private static func peerExecutable() -> String? {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let peer = own.deletingLastPathComponent().appendingPathComponent("realm-bench-sqlcipher").path
        if FileManager.default.isExecutableFile(atPath: peer) { return peer }
        // .build/<triple>/<configuration>/realm-bench: the package is four levels up.
        var root = own.deletingLastPathComponent()
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        let configuration = own.deletingLastPathComponent().lastPathComponent == "debug" ? "debug" : "release"
        print("building the SQLCipher peer (swift build -c \(configuration) --product realm-bench-sqlcipher)")
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "-c", configuration, "--product", "realm-bench-sqlcipher"]
        build.currentDirectoryURL = root
        do { try build.run() } catch {
            print("note: could not build the SQLCipher peer (\(error)); no SQLCipher peer")
            return nil
        }
        build.waitUntilExit()
        guard build.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: peer) else {
            print("note: building the SQLCipher peer failed; no SQLCipher peer")
            return nil
        }
        return peer
    }
}
