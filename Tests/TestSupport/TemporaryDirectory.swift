import Foundation

/// A fresh directory for one test, removed with everything in it when the value is released.
/// Bind it to a name for as long as the test uses it: a temporary one is released at once.
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init() {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("asyncrealm-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The directory's path.
    package var path: String { url.path }

    /// The URL of file `name` in the directory.
    package func file(_ name: String = "test.realm") -> URL { url.appendingPathComponent(name) }

    /// The path of file `name` in the directory.
    package func filePath(_ name: String) -> String { file(name).path }
}
