import Foundation
import Testing

/// Every Swift block of README.md, docs/*.md and the doc comments of the SDK, the example programs and the reference
/// server is code that compiles: the shown part of a file in one of ``Snippet/folders`` (Examples/Sources/DocSnippets,
/// an executable; Examples/Tests/DocSnippetTests/Snippets, tests and harnesses; the reference server's test targets'
/// Snippets folders, compiled by `swift test --package-path Examples/DiaryServer`). The blocks that are not Swift a
/// compiler can check (a manifest fragment, an API outline) say "```swift skip-compile" and are listed here.
@Suite("Documentation snippets")
struct DocSnippetTests {
    /// The blocks fenced "```swift skip-compile", by file and first line, with why each cannot compile.
    static let skipped: [(file: String, firstLine: String, why: String)] = [
        ("README.md", "// Package.swift", "a fragment of a package manifest"),
        ("docs/Testing.md", ".testTarget(name: \"MyAppTests\", dependencies: [", "a fragment of a package manifest"),
        ("docs/CustomStorage.md", "public protocol DiaryStorage: Sendable {", "an outline of the protocol's requirements"),
        ("docs/FEEDS.md", "public struct FeedParser: Sendable {", "an outline of the feed parser's API"),
    ]

    @Test func everySwiftBlockIsTheShownPartOfACompiledSnippet() throws {
        let snippets = try Snippet.all()
        let texts = Set(snippets.map(\.text))
        var problems: [String] = []
        for block in try DocBlock.all() {
            switch block.attributes {
            case "":
                if !texts.contains(block.text) {
                    problems.append(
                        "\(block): no snippet shows this block; add or fix a file in \(Snippet.folders):\n\(block.text)")
                }
            case "skip-compile":
                if !Self.skipped.contains(where: { $0.file == block.file && $0.firstLine == block.lines.first }) {
                    problems.append("\(block): marked skip-compile but not listed in DocSnippetTests.skipped")
                }
            default:
                problems.append("\(block): unknown fence attributes “\(block.attributes)” (use none or skip-compile)")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) block(s):\n\(problems.joined(separator: "\n\n"))")
    }

    @Test func everySnippetIsShownByABlock() throws {
        let blocks = Set(try DocBlock.all().map(\.text))
        let orphans = try Snippet.all().filter { !blocks.contains($0.text) }
        #expect(orphans.isEmpty, "snippets no documentation block shows (stale?): \(orphans)")
        #expect(try Snippet.all().allSatisfy { !$0.lines.isEmpty })
    }

    @Test func everyScannedFolderAndSnippetFolderIsThere() throws {
        // A folder renamed or moved would otherwise leave its examples unchecked, silently.
        let blocks = try DocBlock.all()
        for folder in DocBlock.sourceFolders {
            #expect(blocks.contains { $0.file.hasPrefix(folder + "/") }, "no Swift block found in the doc comments under \(folder)")
        }
        let snippets = try Snippet.all()
        for folder in Snippet.folders {
            #expect(snippets.contains { $0.file.hasPrefix(folder + "/") }, "no snippet found in \(folder)")
        }
    }

    @Test func everyListedSkipIsStillMarked() throws {
        let blocks = try DocBlock.all().filter { $0.attributes == "skip-compile" }
        for skip in Self.skipped {
            #expect(
                blocks.contains { $0.file == skip.file && $0.lines.first == skip.firstLine },
                "\(skip.file): \(skip.firstLine)")
        }
    }

    @Test func theExtractorFindsBlocksInMarkdownAndDocComments() throws {
        let markdown = DocBlock.swiftBlocks(
            in: ["text", "  ```swift", "  let a = 1", "    b()", "  ```", "```swift skip-compile", "x", "```"], file: "m.md")
        #expect(markdown.map(\.text) == ["let a = 1\n  b()", "x"])
        #expect(markdown.map(\.attributes) == ["", "skip-compile"])
        #expect(markdown.first?.line == 2)
        // A doc comment's block ends where the comment ends.
        let comment = DocBlock.swiftBlocks(in: ["```swift", "a", nil, "```swift", "b", "```"], file: "s.swift")
        #expect(comment.map(\.text) == ["b"])
        let one = try Snippet.parse(
            file: "s.swift",
            source: "x\n// snippet.show\nimport A\n// snippet.hide\nfunc f() {\n    // snippet.show\n    g()\n    // snippet.hide\n}\n")
        #expect(one.map(\.text) == ["import A\ng()"])
        let two = try Snippet.parse(
            file: "s.swift", source: "x\n// snippet.begin: a\n// snippet.show\na()\n// snippet.begin: b\ny\n// snippet.show\nb()\n")
        #expect(two.map(\.text) == ["a()", "b()"])
        #expect(throws: SnippetError.self) { try Snippet.parse(file: "s.swift", source: "    // snippet.show\n  x\n") }
    }
}
