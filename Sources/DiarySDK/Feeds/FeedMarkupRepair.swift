import Foundation

/// A single pass over UTF-8 XML that makes real-world feeds acceptable to a strict XML parser.
///
/// - Removes the DOCTYPE (external DTDs are never loaded). Simple internal general entities
///   (literal values without references) are kept and expanded here, with a total budget;
///   an entity whose value references another entity (the "billion laughs" shape) rejects the
///   document with ``FeedParsingError/Code/entityExpansion``.
/// - Rewrites HTML named entities to numeric references, unknown entities and bare `&` to `&amp;`,
///   invalid numeric references to U+FFFD and C1 numeric references (`&#146;`) to their windows-1252 meaning.
/// - Drops control characters that XML 1.0 forbids, and closes an unterminated CDATA section.
/// CDATA sections and comments are copied untouched.
struct FeedMarkupRepair {
    static let expansionBudget = 1 << 20

    private var counts: [String: (count: Int, line: Int)] = [:]
    private var entities: [String: [UInt8]] = [:]
    private var expanded = 0
    private var line = 1

    static func repair(_ input: [UInt8]) throws -> (bytes: [UInt8], diagnostics: [FeedDiagnostic]) {
        var repair = FeedMarkupRepair()
        let output = try repair.run(input)
        let messages: [String: String] = [
            "htmlEntity": "HTML named entities were rewritten to numeric character references",
            "bareAmpersand": "Bare or unknown '&' references were escaped as &amp;",
            "invalidCharacterReference": "Invalid numeric character references were replaced",
            "controlCharacter": "Control characters not allowed in XML were removed",
            "unterminatedCDATA": "An unterminated CDATA section was closed at the end of the document",
            "misplacedDeclaration": "An XML declaration that was not at the very start was removed",
            "internalEntity": "Entities declared in the DOCTYPE were expanded by the parser's own budgeted expander",
        ]
        let diagnostics = repair.counts.sorted { $0.value.line < $1.value.line }.map { kind, value in
            FeedDiagnostic(kind: kind, severity: kind == "internalEntity" ? .info : .repaired,
                           message: "\(messages[kind] ?? kind) (\(value.count)×, first on line \(value.line))", line: value.line)
        }
        return (output, diagnostics)
    }

    private mutating func note(_ kind: String) {
        if let existing = counts[kind] { counts[kind] = (existing.count + 1, existing.line) } else { counts[kind] = (1, line) }
    }

    private static func starts(_ b: [UInt8], _ i: Int, _ literal: StaticString, caseInsensitive: Bool = false) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard i + count <= b.count else { return false }
        return literal.withUTF8Buffer { lit in
            for k in 0..<count {
                let a = b[i + k], c = lit[k]
                if a == c { continue }
                if caseInsensitive, a | 0x20 == c | 0x20, (c | 0x20) >= 0x61, (c | 0x20) <= 0x7A { continue }
                return false
            }
            return true
        }
    }

    private static func find(_ b: [UInt8], _ from: Int, _ literal: StaticString) -> Int? {
        let first = literal.utf8Start.pointee
        let count = literal.utf8CodeUnitCount
        return b.withUnsafeBufferPointer { buffer -> Int? in
            let n = buffer.count
            var i = from
            while i < n {
                if buffer[i] == first, i + count <= n {
                    var k = 1
                    while k < count, buffer[i + k] == literal.utf8Start[k] { k += 1 }
                    if k == count { return i }
                }
                i += 1
            }
            return nil
        }
    }

    private mutating func copy(_ b: [UInt8], _ range: Range<Int>, into out: inout [UInt8]) {
        b.withUnsafeBufferPointer { buffer in
            var newlines = 0
            for k in range where buffer[k] == 0x0A { newlines += 1 }
            line += newlines
        }
        out.append(contentsOf: b[range])
    }

    /// The end of the run starting at `start` of bytes copied as they are: anything but `<`, `&` and the control
    /// characters XML forbids. Counts the run's newlines into `newlines`.
    private static func plainRunEnd(_ b: [UInt8], from start: Int, newlines: inout Int) -> Int {
        b.withUnsafeBufferPointer { buffer in
            var i = start
            var lines = 0
            let n = buffer.count
            while i < n {
                let c = buffer[i]
                if c >= 0x3D || (c >= 0x20 && c != 0x26 && c != 0x3C) {
                    i += 1
                    continue
                }
                if c == 0x0A {
                    lines += 1
                    i += 1
                    continue
                }
                if c == 0x09 || c == 0x0D {
                    i += 1
                    continue
                }
                break
            }
            newlines += lines
            return i
        }
    }

    private mutating func run(_ b: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count + b.count / 16)
        var i = 0
        let n = b.count
        while i < n {
            // Fast path: copy the run of bytes that need no attention in one go.
            let runEnd = Self.plainRunEnd(b, from: i, newlines: &line)
            if runEnd > i {
                out.append(contentsOf: b[i..<runEnd])
                i = runEnd
                if i >= n { break }
            }
            let c = b[i]
            if c == UInt8(ascii: "<") {
                // Ordinary tags (`<name`, `</name`) need nothing: only `<!` and `<?` are special.
                if i + 1 < n, b[i + 1] != UInt8(ascii: "!"), b[i + 1] != UInt8(ascii: "?") {
                    out.append(c)
                    i += 1
                    continue
                }
                if Self.starts(b, i, "<![CDATA[") {
                    if let end = Self.find(b, i + 9, "]]>") {
                        copy(b, i..<(end + 3), into: &out)
                        i = end + 3
                    } else {
                        copy(b, i..<n, into: &out)
                        out.append(contentsOf: Array("]]>".utf8))
                        note("unterminatedCDATA")
                        i = n
                    }
                    continue
                }
                if Self.starts(b, i, "<!--") {
                    let end = Self.find(b, i + 4, "-->").map { $0 + 3 } ?? n
                    copy(b, i..<end, into: &out)
                    i = end
                    continue
                }
                if i > 0, Self.starts(b, i, "<?xml"), i + 5 < n, b[i + 5] <= 0x20 {
                    // An XML declaration after a comment or whitespace is a fatal error for libxml2: drop it.
                    let end = Self.find(b, i + 5, "?>").map { $0 + 2 } ?? n
                    note("misplacedDeclaration")
                    i = end
                    continue
                }
                if Self.starts(b, i, "<!DOCTYPE", caseInsensitive: true) {
                    i = try doctype(b, i, into: &out)
                    continue
                }
                out.append(c)
                i += 1
                continue
            }
            if c == UInt8(ascii: "&") {
                i = reference(b, i, into: &out)
                continue
            }
            if c < 0x20, c != 0x09, c != 0x0A, c != 0x0D {
                note("controlCharacter")
                i += 1
                continue
            }
            if c == 0x0A { line += 1 }
            out.append(c)
            i += 1
        }
        return out
    }

    /// Skips the DOCTYPE at `start`, collecting simple internal entities; emits only its newlines.
    private mutating func doctype(_ b: [UInt8], _ start: Int, into out: inout [UInt8]) throws -> Int {
        var i = start + 9
        var subsetStart: Int?
        var subsetEnd: Int?
        var quote: UInt8 = 0
        while i < b.count {
            let c = b[i]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: "["), subsetStart == nil {
                subsetStart = i + 1
            } else if c == UInt8(ascii: "]"), subsetStart != nil, subsetEnd == nil {
                subsetEnd = i
            } else if c == UInt8(ascii: ">"), subsetStart == nil || subsetEnd != nil {
                break
            } else if c == UInt8(ascii: "<"), subsetStart != nil, subsetEnd == nil, Self.starts(b, i, "<!ENTITY") {
                i = try entityDeclaration(b, i)
                continue
            }
            i += 1
        }
        let end = min(i + 1, b.count)
        for k in start..<end where b[k] == 0x0A {
            out.append(0x0A)
            line += 1
        }
        return end
    }

    /// Parses `<!ENTITY name "value">`; parameter and external entities are ignored.
    private mutating func entityDeclaration(_ b: [UInt8], _ start: Int) throws -> Int {
        var i = start + 8
        func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 } }
        skipSpace()
        var parameter = false
        if i < b.count, b[i] == UInt8(ascii: "%") { parameter = true; i += 1; skipSpace() }
        let nameStart = i
        while i < b.count, b[i] > 0x20, b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "'") { i += 1 }
        let name = String(decoding: b[nameStart..<i], as: UTF8.self)
        skipSpace()
        var value: [UInt8]?
        if i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
            let quote = b[i]
            let valueStart = i + 1
            i += 1
            while i < b.count, b[i] != quote { i += 1 }
            value = Array(b[valueStart..<min(i, b.count)])
            i += 1
        }
        while i < b.count, b[i] != UInt8(ascii: ">") {
            if b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                let quote = b[i]
                i += 1
                while i < b.count, b[i] != quote { i += 1 }
            }
            i += 1
        }
        if !parameter, let value, !name.isEmpty {
            if entities.count >= 1_000 {
                throw FeedParsingError(.entityExpansion, "The DOCTYPE declares more than 1000 entities", line: line)
            }
            for k in 0..<value.count where value[k] == UInt8(ascii: "&") || value[k] == UInt8(ascii: "%") {
                if value[k] == UInt8(ascii: "%") || (k + 1 < value.count && value[k + 1] != UInt8(ascii: "#")) {
                    throw FeedParsingError(.entityExpansion,
                                           "Entity \"\(name)\" is defined in terms of other entities (possible entity-expansion attack); refused",
                                           line: line)
                }
            }
            if value.count <= 4_096 { entities[name] = value }
        }
        return min(i + 1, b.count)
    }

    /// Handles an `&` at `start`; returns the index after the consumed bytes.
    private mutating func reference(_ b: [UInt8], _ start: Int, into out: inout [UInt8]) -> Int {
        var i = start + 1
        let n = b.count
        if i < n, b[i] == UInt8(ascii: "#") {
            i += 1
            var hex = false
            if i < n, b[i] == UInt8(ascii: "x") || b[i] == UInt8(ascii: "X") { hex = true; i += 1 }
            var value: UInt32 = 0
            var digits = 0
            while i < n, digits < 10 {
                let c = b[i]
                let d: UInt32
                if c >= 0x30 && c <= 0x39 { d = UInt32(c - 0x30) } else if hex, (c | 0x20) >= 0x61, (c | 0x20) <= 0x66 { d = UInt32((c | 0x20) - 0x61 + 10) } else { break }
                value = value &* (hex ? 16 : 10) &+ d
                digits += 1
                i += 1
            }
            guard digits > 0 else {
                note("bareAmpersand")
                out.append(contentsOf: Array("&amp;".utf8))
                return start + 1
            }
            let terminated = i < n && b[i] == UInt8(ascii: ";")
            if terminated { i += 1 } else { note("bareAmpersand") }
            var scalar = value
            if (0x80...0x9F).contains(value) {
                scalar = FeedHTMLEntities.windows1252C1[Int(value - 0x80)]
            }
            let valid = scalar == 0x9 || scalar == 0xA || scalar == 0xD || (0x20...0xD7FF).contains(scalar)
                || (0xE000...0xFFFD).contains(scalar) || (0x10000...0x10FFFF).contains(scalar)
            if !valid || scalar != value || !terminated || b[start + 2] == UInt8(ascii: "X") {
                if !valid { note("invalidCharacterReference") }
                out.append(contentsOf: Array("&#\(valid ? scalar : 0xFFFD);".utf8))
            } else {
                out.append(contentsOf: b[start..<i])
            }
            return i
        }
        let nameStart = i
        while i < n, i - nameStart < 64 {
            let c = b[i]
            let isNameChar = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "_")
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c >= 0x80
            if !isNameChar { break }
            i += 1
        }
        if i > nameStart, i < n, b[i] == UInt8(ascii: ";") {
            let name = String(decoding: b[nameStart..<i], as: UTF8.self)
            switch name {
            case "amp", "lt", "gt", "quot", "apos":
                out.append(contentsOf: b[start...i])
                return i + 1
            default:
                break
            }
            if let value = entities[name] {
                note("internalEntity")
                expanded += value.count
                if expanded <= Self.expansionBudget {
                    for byte in value {
                        switch byte {
                        case UInt8(ascii: "<"): out.append(contentsOf: Array("&lt;".utf8))
                        case UInt8(ascii: "&"): out.append(byte) // only character references survive validation
                        default: out.append(byte)
                        }
                    }
                }
                return i + 1
            }
            if let scalar = FeedHTMLEntities.table[name] {
                note("htmlEntity")
                out.append(contentsOf: Array("&#\(scalar);".utf8))
                return i + 1
            }
        }
        note("bareAmpersand")
        out.append(contentsOf: Array("&amp;".utf8))
        return start + 1
    }
}
