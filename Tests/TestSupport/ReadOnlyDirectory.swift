import Foundation

/// A directory of copies of some files, on which nothing can be created or written: a tmpfs
/// mounted read-only when this process is root (which permissions do not stop), a directory
/// without write permission otherwise. Nil where neither can be had (root without the right
/// to mount). Removed when let go of.
package final class ReadOnlyDirectory {
    package let url: URL
    private let mounted: Bool

    package init?(copying files: [URL]) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("asyncrealm-ro-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        mounted = getuid() == 0
        if mounted && !ReadOnlyDirectory.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", url.path]) {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        for file in files { try? FileManager.default.copyItem(at: file, to: url.appendingPathComponent(file.lastPathComponent)) }
        let locked = mounted
            ? ReadOnlyDirectory.run("/bin/mount", ["-o", "remount,ro", url.path])
            : chmod(url.path, 0o555) == 0
        guard locked else {
            cleanUp()
            return nil
        }
    }

    deinit { cleanUp() }

    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    private func cleanUp() {
        if mounted { _ = ReadOnlyDirectory.run("/bin/umount", [url.path]) } else { chmod(url.path, 0o755) }
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
