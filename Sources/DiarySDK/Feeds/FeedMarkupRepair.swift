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
/// - Removes processing instructions without data (`<?php?>`), which crash XMLParser on Linux.
/// CDATA sections and comments are otherwise copied untouched.
struct FeedMarkupRepair {
    static let expansionBudget = 1 << 20

    private var counts: [String: (count: Int, line: Int)] = [:]
    private var entities: [String: [UInt8]] = [:]
    private var expanded = 0
    /// The line of ``countedUpTo``: newlines are counted only when a diagnostic needs a line number.
    private var line = 1
    private var countedUpTo = 0
    /// The repaired document, created at the first change; `nil` while the input needs nothing.
    private var out: [UInt8]?
    /// Input bytes before this index are already in `out` (or unchanged, while `out` is `nil`).
    private var copiedUpTo = 0

    /// The diagnostic message of each kind of repair.
    static let messages: [String: String] = [
        "htmlEntity": "HTML named entities were rewritten to numeric character references",
        "bareAmpersand": "Bare or unknown '&' references were escaped as &amp;",
        "invalidCharacterReference": "Invalid numeric character references were replaced",
        "controlCharacter": "Control characters not allowed in XML were removed",
        "unterminatedCDATA": "An unterminated CDATA section was closed at the end of the document",
        "misplacedDeclaration": "An XML declaration that was not at the very start was removed",
        "internalEntity": "Entities declared in the DOCTYPE were expanded by the parser's own budgeted expander",
    ]

    /// Repairs `input`; returns it untouched (same storage, no copy) when nothing needs repair.
    static func repair(_ input: [UInt8]) throws -> (bytes: [UInt8], diagnostics: [FeedDiagnostic]) {
        let result = try input.withUnsafeBufferPointer { try repair(in: $0) }
        return (result.bytes ?? input, result.diagnostics)
    }

    /// Repairs the bytes `input`; `bytes` is `nil` when they need nothing (the caller then uses `input` itself).
    static func repair(in input: UnsafeBufferPointer<UInt8>) throws -> (bytes: [UInt8]?, diagnostics: [FeedDiagnostic]) {
        var repair = FeedMarkupRepair()
        var output = try repair.run(input)
        // Last, on exactly the bytes XMLParser will read: what the pass removed (a control character, a misplaced
        // declaration, a DOCTYPE) or expanded (an entity that is empty or is `?>`) can leave a processing
        // instruction's target right before `?>`, and so can libxml2's own recovery from an error inside a comment.
        if var repaired = output {
            separateDatalessInstructions(&repaired)
            output = repaired
        } else {
            output = separatingDatalessInstructions(input)
        }
        guard !repair.counts.isEmpty else { return (output, []) }
        let diagnostics = repair.counts.sorted { $0.value.line < $1.value.line }.map { kind, value in
            FeedDiagnostic(kind: kind, severity: kind == "internalEntity" ? .info : .repaired,
                           message: "\(Self.messages[kind] ?? kind) (\(value.count)×, first on line \(value.line))", line: value.line)
        }
        return (output, diagnostics)
    }

    /// Whether the prolog of `b` may hold a DOCTYPE: `false` only when the first element's start tag is reached over
    /// a byte order mark, blanks, processing instructions (the XML declaration) and comments alone.
    static func prologMayHoldDoctype(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i = n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
        while i < n {
            let c = b[i]
            if FeedXMLDeclaration.isBlank(c) {
                i += 1
                continue
            }
            guard c == UInt8(ascii: "<"), i + 1 < n else { return true }
            switch b[i + 1] {
            case UInt8(ascii: "?"):
                guard let end = find(b, i + 2, "?>") else { return true }
                i = end + 2
            case UInt8(ascii: "!"):
                guard starts(b, i, "<!--"), let end = find(b, i + 4, "-->") else { return true }
                i = end + 3
            default:
                return false
            }
        }
        return true
    }

    /// The line number of input position `position` (positions only move forward).
    private mutating func line(at position: Int, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        if position > countedUpTo {
            var newlines = 0
            for k in countedUpTo..<position where b[k] == 0x0A { newlines += 1 }
            line += newlines
            countedUpTo = position
        }
        return line
    }

    private mutating func note(_ kind: String, at position: Int, _ b: UnsafeBufferPointer<UInt8>) {
        if let existing = counts[kind] {
            counts[kind] = (existing.count + 1, existing.line)
        } else {
            counts[kind] = (1, line(at: position, b))
        }
    }

    /// Replaces the input bytes `range` with `replacement` in the output (creating the output on the first change).
    private mutating func replace(_ range: Range<Int>, with replacement: some Sequence<UInt8>, _ b: UnsafeBufferPointer<UInt8>) {
        if out == nil {
            var fresh: [UInt8] = []
            fresh.reserveCapacity(b.count + b.count / 16)
            out = fresh
        }
        out!.append(contentsOf: UnsafeBufferPointer(rebasing: b[copiedUpTo..<range.lowerBound]))
        out!.append(contentsOf: replacement)
        copiedUpTo = range.upperBound
    }

    private static func starts(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ literal: StaticString, caseInsensitive: Bool = false) -> Bool {
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

    /// The index of `literal` at or after `from` (`memchr` finds candidates for its first byte).
    private static func find(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ literal: StaticString) -> Int? {
        let first = literal.utf8Start.pointee
        let count = literal.utf8CodeUnitCount
        guard let base = b.baseAddress else { return nil }
        var i = from
        while i < b.count {
            guard let hit = memchr(base + i, Int32(first), b.count - i) else { return nil }
            i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if i + count <= b.count {
                var k = 1
                while k < count, b[i + k] == literal.utf8Start[k] { k += 1 }
                if k == count { return i }
            }
            i += 1
        }
        return nil
    }

    @inline(__always)
    private static func needsAttention(_ c: UInt8) -> Bool {
        c == 0x26 || c == 0x3C || (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D)
    }

    /// The end of the run starting at `start` of bytes that need nothing: anything but `<`, `&` and the control
    /// characters XML forbids. Eight bytes at a time while no byte of the word can be one of those.
    private static func plainRunEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = b.baseAddress else { return start }
        let n = b.count
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            while i + 8 <= n {
                // Little-endian order whatever the platform, so that byte k of the word is bits 8k..<8k+8.
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let below20 = (word &- ones &* 0x20) & ~word & highs
                let amp = word ^ (ones &* 0x26)
                let lt = word ^ (ones &* 0x3C)
                let candidates = below20 | ((amp &- ones) & ~amp & highs) | ((lt &- ones) & ~lt & highs)
                if candidates != 0 {
                    // The lowest flagged byte is a real candidate (a borrow only flags bytes above a real one): go
                    // straight to it; a tab or line break there is fine, and the scan goes on after it. So is the `<`
                    // of an ordinary tag (`<name`, `</name`: anything but `<!` and `<?`), the bulk of the stops,
                    // skipped here rather than in the caller.
                    let k = i + candidates.trailingZeroBitCount / 8
                    let c = base[k]
                    if c == 0x3C {
                        if k + 1 >= n { return k }
                        let next = base[k + 1]
                        if next == 0x21 || next == 0x3F { return k }
                    } else if needsAttention(c) {
                        return k
                    }
                    i = k + 1
                    continue
                }
                i += 8
            }
            // The tail: look at its bytes one by one; tabs and newlines are fine.
            let limit = min(i + 8, n)
            while i < limit {
                if needsAttention(base[i]) { return i }
                i += 1
            }
            if i >= n { return n }
        }
    }

    /// Scans the document; returns the repaired bytes, or `nil` when nothing needed repair.
    private mutating func run(_ b: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        var i = 0
        let n = b.count
        while i < n {
            i = Self.plainRunEnd(b, from: i)
            if i >= n { break }
            let c = b[i]
            if c == UInt8(ascii: "<") {
                // Ordinary tags (`<name`, `</name`) need nothing: only `<!` and `<?` are special.
                if i + 1 < n, b[i + 1] != UInt8(ascii: "!"), b[i + 1] != UInt8(ascii: "?") {
                    i += 1
                    continue
                }
                if Self.starts(b, i, "<![CDATA[") {
                    if let end = Self.find(b, i + 9, "]]>") {
                        i = end + 3
                    } else {
                        replace(n..<n, with: "]]>".utf8, b)
                        note("unterminatedCDATA", at: n, b)
                        i = n
                    }
                    continue
                }
                if Self.starts(b, i, "<!--") {
                    i = Self.find(b, i + 4, "-->").map { $0 + 3 } ?? n
                    continue
                }
                if i > 0, Self.starts(b, i, "<?xml"), i + 5 < n, b[i + 5] <= 0x20 {
                    // An XML declaration after a comment or whitespace is a fatal error for libxml2: drop it.
                    let end = Self.find(b, i + 5, "?>").map { $0 + 2 } ?? n
                    note("misplacedDeclaration", at: i, b)
                    countedUpTo = end // its newlines are not counted, as before
                    replace(i..<end, with: EmptyCollection(), b)
                    i = end
                    continue
                }
                if Self.starts(b, i, "<!DOCTYPE", caseInsensitive: true) {
                    i = try doctype(b, i)
                    continue
                }
                i += 1
                continue
            }
            if c == UInt8(ascii: "&") {
                // `&lt;`, `&gt;`, `&amp;` (the bulk of escaped HTML) need nothing.
                if i + 3 < n, b[i + 2] == UInt8(ascii: "t"), b[i + 3] == UInt8(ascii: ";"),
                   b[i + 1] == UInt8(ascii: "l") || b[i + 1] == UInt8(ascii: "g") {
                    i += 4
                    continue
                }
                if i + 4 < n, b[i + 1] == UInt8(ascii: "a"), b[i + 2] == UInt8(ascii: "m"), b[i + 3] == UInt8(ascii: "p"),
                   b[i + 4] == UInt8(ascii: ";") {
                    i += 5
                    continue
                }
                i = reference(b, i)
                continue
            }
            // A control character XML forbids.
            note("controlCharacter", at: i, b)
            replace(i..<(i + 1), with: EmptyCollection(), b)
            i += 1
        }
        guard out != nil else { return nil }
        replace(n..<n, with: EmptyCollection(), b)
        return out
    }

    /// Removes every processing instruction without data (`<?php?>`), wherever it stands: libxml2 reports it with no
    /// data at all, and XMLParser on Linux reads that missing data as a C string, which crashes the process.
    ///
    /// Such an instruction carries nothing a feed uses and, being a bare name, no newline. It is dropped only where
    /// what precedes it ends with `>` or a blank (or nothing does): no data-less instruction can span that junction,
    /// since its last byte can only be an instruction's final `>` and it holds no blank. Elsewhere (`<<?b?>?c?>`,
    /// `<?a<?b?>?>`, where dropping would join the two sides into `<?c?>` or `<?a?>`) a space goes before its `?>`
    /// instead, which leaves it with empty data. Inside a CDATA section the section is split there
    /// (`<?php]]><![CDATA[?>`), so its text stays the same. Nothing is skipped as a comment or as another
    /// instruction's data: after an error (a character XML forbids inside a comment, say) libxml2 recovers and parses
    /// the rest as markup, so only changing every occurrence is safe. None of the three changes forms a new data-less
    /// instruction, so one pass is enough.
    static func separateDatalessInstructions(_ bytes: inout [UInt8]) {
        if let changed = bytes.withUnsafeBufferPointer({ separatingDatalessInstructions($0) }) { bytes = changed }
    }

    /// ``separateDatalessInstructions(_:)`` on bytes held elsewhere: the changed bytes, or `nil` when nothing changes.
    static func separatingDatalessInstructions(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        @inline(__always) func isTargetByte(_ c: UInt8) -> Bool {
            !FeedXMLDeclaration.isBlank(c) && c != UInt8(ascii: "?") && c != UInt8(ascii: "<") && c != UInt8(ascii: ">")
        }
        /// Whether dropping an instruction after `out` is safe: `out` is empty or ends with `>` or a blank.
        @inline(__always) func endsClosed(_ out: [UInt8]) -> Bool {
            guard let last = out.last else { return true }
            return last == UInt8(ascii: ">") || FeedXMLDeclaration.isBlank(last)
        }
        var changed: [UInt8]?
        var copiedUpTo = 0
        do {
            let n = b.count
            guard let base = b.baseAddress else { return nil }
            // CDATA sections are located only when a candidate needs to know whether it is inside one: `?` is rare
            // in feeds (query strings, the declaration), `<` is in every tag of the HTML inside CDATA.
            var sectionsFrom = 0
            var nextOpen = -2 // start of the next "<![CDATA[" at or after `sectionsFrom`; -1: none; -2: not looked for
            var nextClose = -1 // its "]]>" (or the end)
            /// The end ("]]>") of the CDATA section holding position `i`, else -1.
            func cdataEnd(at i: Int) -> Int {
                while true {
                    if nextOpen == -2 {
                        nextOpen = find(b, sectionsFrom, "<![CDATA[") ?? -1
                        if nextOpen >= 0 { nextClose = find(b, nextOpen + 9, "]]>") ?? n }
                    }
                    if nextOpen < 0 || i < nextOpen + 9 { return -1 }
                    if i < nextClose { return nextClose }
                    sectionsFrom = Swift.min(nextClose + 3, n)
                    nextOpen = -2
                }
            }
            var q = 0
            while q < n {
                guard let hit = memchr(base + q, Int32(UInt8(ascii: "?")), n - q) else { break }
                q = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                guard q > 0, b[q - 1] == UInt8(ascii: "<"), q - 1 >= copiedUpTo else {
                    q += 1
                    continue
                }
                let i = q - 1
                let cdataEnd = cdataEnd(at: i)
                // The target as libxml2 reads it is a name, which never holds a blank, `?`, `<` or `>`.
                var j = i + 2
                while j < n, isTargetByte(b[j]) { j += 1 }
                guard j + 1 < n, b[j] == UInt8(ascii: "?"), b[j + 1] == UInt8(ascii: ">") else {
                    q = j
                    continue
                }
                if changed == nil {
                    changed = []
                    changed!.reserveCapacity(n + 16)
                }
                changed!.append(contentsOf: UnsafeBufferPointer(rebasing: b[copiedUpTo..<i]))
                if j < cdataEnd {
                    changed!.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<j]))
                    changed!.append(contentsOf: "]]><![CDATA[".utf8)
                    copiedUpTo = j
                } else if endsClosed(changed!) {
                    copiedUpTo = j + 2
                } else {
                    changed!.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<j]))
                    changed!.append(0x20)
                    copiedUpTo = j
                }
                q = j + 2
            }
            if changed != nil { changed!.append(contentsOf: UnsafeBufferPointer(rebasing: b[copiedUpTo...])) }
        }
        return changed
    }

    /// Skips the DOCTYPE at `start`, collecting simple internal entities; emits only its newlines.
    private mutating func doctype(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) throws -> Int {
        let doctypeLine = line(at: start, b)
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
                i = try entityDeclaration(b, i, line: doctypeLine)
                continue
            }
            i += 1
        }
        let end = min(i + 1, b.count)
        var newlines = 0
        for k in start..<end where b[k] == 0x0A { newlines += 1 }
        replace(start..<end, with: repeatElement(UInt8(0x0A), count: newlines), b)
        return end
    }

    /// Parses `<!ENTITY name "value">`; parameter and external entities are ignored.
    private mutating func entityDeclaration(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, line: Int) throws -> Int {
        var i = start + 8
        func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 } }
        skipSpace()
        var parameter = false
        if i < b.count, b[i] == UInt8(ascii: "%") { parameter = true; i += 1; skipSpace() }
        let nameStart = i
        while i < b.count, b[i] > 0x20, b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "'") { i += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<i]), as: UTF8.self)
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

    /// Whether `b[from..<to]` is `amp`, `lt`, `gt`, `quot` or `apos` (compared as bytes: no string is built for the
    /// references that escaped HTML is made of).
    private static func isPredefined(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        switch to - from {
        case 2:
            return (b[from] == UInt8(ascii: "l") || b[from] == UInt8(ascii: "g")) && b[from + 1] == UInt8(ascii: "t")
        case 3:
            return b[from] == UInt8(ascii: "a") && b[from + 1] == UInt8(ascii: "m") && b[from + 2] == UInt8(ascii: "p")
        case 4:
            return (b[from] == UInt8(ascii: "q") && b[from + 1] == UInt8(ascii: "u") && b[from + 2] == UInt8(ascii: "o")
                    && b[from + 3] == UInt8(ascii: "t"))
                || (b[from] == UInt8(ascii: "a") && b[from + 1] == UInt8(ascii: "p") && b[from + 2] == UInt8(ascii: "o")
                    && b[from + 3] == UInt8(ascii: "s"))
        default:
            return false
        }
    }

    /// Handles an `&` at `start`; returns the index after the consumed bytes.
    private mutating func reference(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
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
                note("bareAmpersand", at: start, b)
                replace(start..<(start + 1), with: "&amp;".utf8, b)
                return start + 1
            }
            let terminated = i < n && b[i] == UInt8(ascii: ";")
            if terminated { i += 1 } else { note("bareAmpersand", at: start, b) }
            var scalar = value
            if (0x80...0x9F).contains(value) {
                scalar = FeedHTMLEntities.windows1252C1[Int(value - 0x80)]
            }
            let valid = scalar == 0x9 || scalar == 0xA || scalar == 0xD || (0x20...0xD7FF).contains(scalar)
                || (0xE000...0xFFFD).contains(scalar) || (0x10000...0x10FFFF).contains(scalar)
            if !valid || scalar != value || !terminated || b[start + 2] == UInt8(ascii: "X") {
                if !valid { note("invalidCharacterReference", at: start, b) }
                replace(start..<i, with: "&#\(valid ? scalar : 0xFFFD);".utf8, b)
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
            if Self.isPredefined(b, nameStart, i) { return i + 1 }
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<i]), as: UTF8.self)
            if let value = entities[name] {
                note("internalEntity", at: start, b)
                expanded += value.count
                var expansion: [UInt8] = []
                if expanded <= Self.expansionBudget {
                    for byte in value {
                        switch byte {
                        case UInt8(ascii: "<"): expansion.append(contentsOf: "&lt;".utf8)
                        case UInt8(ascii: "&"): expansion.append(byte) // only character references survive validation
                        default: expansion.append(byte)
                        }
                    }
                }
                replace(start..<(i + 1), with: expansion, b)
                return i + 1
            }
            if let scalar = FeedHTMLEntities.table[name] {
                note("htmlEntity", at: start, b)
                replace(start..<(i + 1), with: "&#\(scalar);".utf8, b)
                return i + 1
            }
        }
        note("bareAmpersand", at: start, b)
        replace(start..<(start + 1), with: "&amp;".utf8, b)
        return start + 1
    }
}
