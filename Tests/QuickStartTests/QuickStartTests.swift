import Foundation
import Testing
import TestSupport

/// The README's quick start is this target's `QuickStart.swift`, word for word: this test
/// holds them equal, the build compiles it, and the test below runs it.
@Suite("README quick start")
struct QuickStartTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the README's quick start is QuickStart.swift, word for word")
    func readmeMatches() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: Self.root.appendingPathComponent("Tests/QuickStartTests/QuickStart.swift"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Quick start"), "README.md has no '## Quick start' section")
        // The section's block of Swift that is a program (the one before it is a dependency).
        let fence = try #require(readme.range(of: "```swift\nimport AsyncRealm", range: start.upperBound..<readme.endIndex))
        let body = readme.index(fence.lowerBound, offsetBy: "```swift\n".count)
        let end = try #require(readme.range(of: "```", range: body..<readme.endIndex))
        #expect(String(readme[body..<end.lowerBound]) == source)
    }

    @Test("the quick start runs: a link, a list, a query, an actor's asyncWrite and a change stream")
    func runs() async throws {
        let directory = TemporaryDirectory()
        #expect(try await quickStart(in: directory.url) == ["Bo", "Ada has 1 dog"])
    }
}
