import Foundation

/// A fenced code block found in README.md, docs/*.md or a doc comment of the SDK's, the example programs' or the
/// reference server's sources.
struct DocBlock: CustomStringConvertible {
    /// The file, relative to the repository's root.
    var file: String
    /// The line of the opening fence (1-based).
    var line: Int
    /// What follows "```swift" on the fence line ("" or "skip-compile").
    var attributes: String
    /// The block's lines, without the fence's indentation (and without `/// ` in a doc comment).
    var lines: [String]

    var text: String { lines.joined(separator: "\n") }
    var description: String { "\(file):\(line)" }

    /// The repository's root, found from this file's path (Examples/Tests/DocSnippetTests/DocBlocks.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folders whose `.swift` files' doc comments are scanned: the SDK, the example programs, and the reference
    /// server's package (whose examples compile in its own test targets, see ``Snippet/folders``).
    static let sourceFolders = ["Sources", "Examples/Sources", "Examples/DiaryServer/Sources"]

    /// Every Swift block of README.md, docs/*.md and the doc comments under ``sourceFolders``.
    static func all() throws -> [DocBlock] {
        var blocks: [DocBlock] = []
        let manager = FileManager.default
        var markdown = ["README.md"]
        markdown += try manager.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        for file in markdown {
            let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            blocks += swiftBlocks(in: lines.map { Optional($0) }, file: file)
        }
        for folder in sourceFolders {
            blocks += try docCommentBlocks(under: folder)
        }
        return blocks.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    /// The Swift blocks of the doc comments in the `.swift` files under a folder of the repository.
    static func docCommentBlocks(under folder: String) throws -> [DocBlock] {
        var blocks: [DocBlock] = []
        let sources = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return blocks }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let lines = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
                .components(separatedBy: "\n")
            // Only doc comment lines take part; any other line ends a block (nil).
            let docLines: [String?] = lines.map { line in
                let trimmed = line.drop { $0 == " " || $0 == "\t" }
                guard trimmed.hasPrefix("///") else { return nil }
                let rest = trimmed.dropFirst(3)
                return String(rest.hasPrefix(" ") ? rest.dropFirst() : rest)
            }
            blocks += swiftBlocks(in: docLines, file: "\(folder)/\(path)")
        }
        return blocks
    }

    /// The blocks fenced as "```swift…" in a list of lines (nil: a line that cannot belong to a block).
    static func swiftBlocks(in lines: [String?], file: String) -> [DocBlock] {
        var blocks: [DocBlock] = []
        var open: (line: Int, indent: Int, attributes: String, lines: [String])?
        for (index, line) in lines.enumerated() {
            guard let line else {
                open = nil   // an unterminated block in a doc comment: not a block
                continue
            }
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            if var current = open {
                if trimmed.hasPrefix("```") && trimmed.dropFirst(3).allSatisfy({ $0 == " " }) {
                    blocks.append(DocBlock(file: file, line: current.line, attributes: current.attributes, lines: current.lines))
                    open = nil
                } else {
                    current.lines.append(String(line.dropFirst(min(indent, current.indent))))
                    open = current
                }
            } else if trimmed.hasPrefix("```swift") {
                let attributes = trimmed.dropFirst("```swift".count).trimmingCharacters(in: .whitespaces)
                open = (index + 1, indent, attributes, [])
            }
        }
        return blocks
    }
}

/// Compiled code whose shown lines are a documentation block: the lines between a `// snippet.show` line and the
/// next `// snippet.hide` line (or the end), each without the indentation of its `// snippet.show`. A file holds one
/// snippet, or several, each starting at a `// snippet.begin` line (which names the block's place, by convention).
struct Snippet: CustomStringConvertible {
    /// The file, relative to the repository's root.
    var file: String
    var lines: [String]

    var text: String { lines.joined(separator: "\n") }
    var description: String { "\(file) (\(lines.first ?? ""))" }

    /// The folders holding snippets: an executable (run by the tests), this test target (tests and harnesses), and
    /// the reference server's test targets, where the examples of its doc comments compile against the modules they
    /// show (that package's `swift test` builds them; this one only reads them).
    static let folders = [
        "Examples/Sources/DocSnippets", "Examples/Tests/DocSnippetTests/Snippets",
        "Examples/DiaryServer/Tests/DiaryPostgresTests/Snippets", "Examples/DiaryServer/Tests/DiaryServerTests/Snippets",
    ]

    static func all() throws -> [Snippet] {
        var snippets: [Snippet] = []
        for folder in folders {
            let directory = DocBlock.root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where name.hasSuffix(".swift") && name != "main.swift" {
                let source = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                snippets += try Snippet.parse(file: "\(folder)/\(name)", source: source)
            }
        }
        return snippets
    }

    /// The snippets of a file: one, or one per `// snippet.begin` line when it has several.
    static func parse(file: String, source: String) throws -> [Snippet] {
        var snippets: [Snippet] = []
        var current: [String]?
        var indent: Int?
        func finish() {
            guard var lines = current else { return }
            // The source's final newline is not part of the block.
            while lines.last == "" { lines.removeLast() }
            snippets.append(Snippet(file: file, lines: lines))
        }
        let lines = source.components(separatedBy: "\n")
        let several = lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("// snippet.begin") }
        if !several { current = [] }
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet.begin") {
                finish()
                current = []
                indent = nil
            } else if trimmed == "// snippet.show" {
                guard current != nil else {
                    throw SnippetError("\(file):\(index + 1): `// snippet.show` before the file's first `// snippet.begin`")
                }
                indent = line.prefix { $0 == " " }.count
            } else if trimmed == "// snippet.hide" {
                indent = nil
            } else if let indent {
                guard line.prefix(indent).allSatisfy({ $0 == " " }) else {
                    throw SnippetError("\(file):\(index + 1): a shown line is indented less than its `// snippet.show`")
                }
                current?.append(String(line.dropFirst(indent)))
            }
        }
        finish()
        return snippets
    }
}

struct SnippetError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
