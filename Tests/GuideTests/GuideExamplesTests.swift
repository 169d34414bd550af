import Foundation
import Testing

/// Every guide's Swift is compiled: each ```swift block of `Docs/<Guide>.md` must appear,
/// line for line (indented by the same amount throughout, as inside a function or a
/// namespace), in this target's `<Guide>Guide.swift`, which the build compiles and whose
/// tests run the examples.
@Suite("The guides' examples are compiled")
struct GuideExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The user guides: every Markdown file directly in `Docs/`.
    static var guides: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.map { String($0.dropLast(3)) }.sorted()
    }

    /// The ```swift blocks of `markdown`, each as its lines.
    static func swiftBlocks(in markdown: String) -> [[Substring]] {
        var blocks: [[Substring]] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Whether `block`'s lines appear consecutively in `source`, each with one same prefix of spaces.
    static func contains(_ source: [Substring], _ block: [Substring]) -> Bool {
        guard let first = block.first(where: { !$0.isEmpty }) else { return true }
        for start in source.indices {
            guard source[start].hasSuffix(first), source.count - start >= block.count else { continue }
            let indent = source[start].dropLast(first.count)
            guard indent.allSatisfy({ $0 == " " }), let offset = block.firstIndex(of: first), start >= offset else { continue }
            let lines = source[(start - offset)..<(start - offset + block.count)]
            if zip(lines, block).allSatisfy({ $1.isEmpty ? $0.allSatisfy { $0 == " " } : $0 == indent + $1 }) { return true }
        }
        return false
    }

    @Test("there are guides, and the README links to each", arguments: [()])
    func readmeLinksEveryGuide(_: Void) throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(Self.guides.count >= 10)
        for guide in Self.guides {
            #expect(readme.contains("(Docs/\(guide).md)"), "README.md does not link Docs/\(guide).md")
        }
    }

    @Test("each ```swift block of a guide is in its Swift file", arguments: guides)
    func examplesCompile(guide: String) throws {
        let markdown = try String(contentsOf: Self.root.appendingPathComponent("Docs/\(guide).md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: markdown)
        guard !blocks.isEmpty else { return }
        let file = Self.root.appendingPathComponent("Tests/GuideTests/\(guide)Guide.swift")
        let source = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        for block in blocks {
            #expect(Self.contains(source, block), "Docs/\(guide).md has an example that \(file.lastPathComponent) does not hold:\n\(block.joined(separator: "\n"))")
        }
    }
}
