import Foundation

/// The path of the executable product `name` (a child process of the multi-process tests),
/// which SwiftPM builds next to the test bundle: on Linux the bundle is an executable inside
/// `.build/<config>/`, perhaps one level down.
package func childExecutablePath(_ name: String) throws -> String {
    let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory.deleteLastPathComponent()
    }
    throw ChildExecutableMissing(description: "\(name) was not built next to \(testBinary)")
}

/// A child executable that is not where the tests look for it.
package struct ChildExecutableMissing: Error, CustomStringConvertible {
    package let description: String
}
