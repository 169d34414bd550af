import Foundation
import Testing

/// The engine's folders are layers (`Docs/Internals/StorageEngine.md`, "Layers"): a folder uses only the
/// folders below it. This reads the sources, finds where each type is declared, and fails on
/// every use of a type from a higher layer, naming the file, the type and both folders.
@Suite("The engine's layers")
struct LayeringTests {
    /// The layers from the bottom: the module's root files (errors, `Locked`, `RowValue`) and
    /// `Encoding` and `IO`, then `Crypto`, then each folder above the last.
    static let layers: [[String]] = [[".", "Encoding", "IO"], ["Crypto"], ["Pages"], ["Space"], ["Tree"], ["Tables"], ["Log"], ["Versions"]]

    @Test("each folder of the engine uses only the folders below it")
    func foldersUseOnlyLowerLayers() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StorageEngine")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 40, "the engine's sources were not found at \(sources.path)")
        let texts = try files.map { file -> (folder: String, name: String, code: String) in
            let relative = file.path.dropFirst(sources.path.count + 1).split(separator: "/")
            let folder = relative.count > 1 ? String(relative[0]) : "."
            return (folder, file.lastPathComponent, Self.code(of: try String(contentsOf: file, encoding: .utf8)))
        }
        let declaration = try Regex(#"(?m)^(?:@\w+(?:\([^)]*\))?\s+)*(?:package |public |private |fileprivate |internal )?(?:final |indirect )?(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)"#)
        var homes: [String: Set<String>] = [:]
        for text in texts {
            for match in text.code.matches(of: declaration) {
                if let name = match.output[1].substring { homes[String(name), default: []].insert(text.folder) }
            }
        }
        // A name declared in two folders (nested types such as `State`) tells nothing.
        let home = homes.compactMapValues { $0.count == 1 ? $0.first : nil }
        let layer = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { index, folders in folders.map { ($0, index) } })
        for text in texts {
            let own = try #require(layer[text.folder], "folder '\(text.folder)' is in no layer; add it to LayeringTests.layers and the doc")
            let used = Set(text.code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.filter { $0.first!.isUppercase }.map(String.init))
            for name in used.sorted() {
                guard let folder = home[name], folder != text.folder, let other = layer[folder], other > own else { continue }
                Issue.record("\(text.folder)/\(text.name) uses \(name) from \(folder), a higher layer")
            }
        }
    }

    /// `source` without comments and string literals, which name types without using them.
    private static func code(of source: String) -> String {
        source.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var line = Substring(line)
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            return line.replacing(#/"[^"]*"/#, with: "\"\"")
        }.joined(separator: "\n")
    }
}
