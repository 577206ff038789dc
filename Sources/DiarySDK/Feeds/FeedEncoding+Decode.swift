import Foundation

extension FeedEncoding {
    private static func bom(_ b: [UInt8]) -> (name: String, encoding: String.Encoding, length: Int)? {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { return ("utf-8", .utf8, 3) }
        if b.count >= 4, b[0] == 0, b[1] == 0, b[2] == 0xFE, b[3] == 0xFF { return ("utf-32be", .utf32BigEndian, 4) }
        if b.count >= 4, b[0] == 0xFF, b[1] == 0xFE, b[2] == 0, b[3] == 0 { return ("utf-32le", .utf32LittleEndian, 4) }
        if b.count >= 2, b[0] == 0xFE, b[1] == 0xFF { return ("utf-16be", .utf16BigEndian, 2) }
        if b.count >= 2, b[0] == 0xFF, b[1] == 0xFE { return ("utf-16le", .utf16LittleEndian, 2) }
        return nil
    }

    /// Recognises BOM-less UTF-16/32 from the encoded form of `<`.
    private static func pattern(_ b: [UInt8]) -> (name: String, encoding: String.Encoding)? {
        if b.count >= 4, b[0] == 0, b[1] == 0, b[2] == 0, b[3] != 0 { return ("utf-32be", .utf32BigEndian) }
        if b.count >= 4, b[0] != 0, b[1] == 0, b[2] == 0, b[3] == 0 { return ("utf-32le", .utf32LittleEndian) }
        if b.count >= 2, b[0] == 0, b[1] != 0 { return ("utf-16be", .utf16BigEndian) }
        if b.count >= 2, b[0] != 0, b[1] == 0 { return ("utf-16le", .utf16LittleEndian) }
        return nil
    }

    /// The bytes of `data` as an array (one `memcpy`).
    static func bytes(of data: Data) -> [UInt8] {
        data.withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: raw.count) { buffer, count in
                if let source = raw.baseAddress, let target = buffer.baseAddress { target.initialize(from: source.assumingMemoryBound(to: UInt8.self), count: raw.count) }
                count = raw.count
            }
        }
    }

    /// Transcodes `data` to UTF-8 bytes (without BOM or leading whitespace) and rewrites the XML declaration.
    static func decode(_ data: Data, httpCharset: String?) throws -> Decoded {
        try decode(bytes(of: data), httpCharset: httpCharset)
    }

    /// Whether ``decode(_:httpCharset:)`` without an HTTP charset would return `bytes` as they are, with no diagnostic:
    /// XML that starts with `<` (no BOM, no leading whitespace, not UTF-16/32), whose declaration is absent or is
    /// exactly the UTF-8 one, and that is valid UTF-8. Such a document can be parsed where it lies.
    static func isPlainUTF8XML(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "<"), bytes[1] != 0 else { return false }
        // libxml2 and FeedXMLDeclaration take `<?xml` and a blank at the start as the declaration.
        let opensDeclaration = bytes.count > 5 && bytes[1] == UInt8(ascii: "?") && bytes[2] == UInt8(ascii: "x")
            && bytes[3] == UInt8(ascii: "m") && bytes[4] == UInt8(ascii: "l") && FeedXMLDeclaration.isBlank(bytes[5])
        if opensDeclaration {
            guard bytes.count >= utf8Declaration.count,
                  UnsafeBufferPointer(rebasing: bytes[..<utf8Declaration.count]).elementsEqual(utf8Declaration) else { return false }
        }
        return isValidUTF8(bytes)
    }

    /// Transcodes `bytes` to UTF-8 (without BOM or leading whitespace) and rewrites the XML declaration. Plain UTF-8
    /// comes back as the same array, uncopied.
    static func decode(_ bytes: [UInt8], httpCharset: String?) throws -> Decoded {
        var diagnostics: [FeedDiagnostic] = []
        var chosen: (name: String, encoding: String.Encoding)?
        var explicit = false
        var start = 0
        if let mark = bom(bytes) {
            chosen = (mark.name, mark.encoding)
            start = mark.length
            explicit = true
        } else if let httpCharset, let label = charset(fromHTTP: httpCharset) {
            if let found = lookup(label) {
                chosen = found
                explicit = true
            } else {
                diagnostics.append(FeedDiagnostic(kind: "unknownCharset", severity: .warning,
                                                  message: "Ignored the unusable HTTP charset \"\(httpCharset)\""))
            }
        }
        if chosen == nil, let found = pattern(bytes) {
            chosen = found
        }
        if chosen == nil, let declared = declaredEncoding(bytes[...]) {
            if let found = lookup(declared) {
                chosen = found
                explicit = true
            } else {
                diagnostics.append(FeedDiagnostic(kind: "unknownEncoding", severity: .repaired,
                                                  message: "Unknown declared encoding \"\(declared)\"; decoding as UTF-8"))
            }
        }
        let target = chosen ?? ("utf-8", .utf8)
        // Plain UTF-8 (the common case) is validated in place and used as it is: no transcoding, no copies.
        if target.encoding == .utf8, bytes.withUnsafeBufferPointer({ isValidUTF8(UnsafeBufferPointer(rebasing: $0[start...])) }) {
            let normalized = normalizedStart(bytes, from: start, diagnostics: &diagnostics)
            return Decoded(bytes: normalized, encoding: target.name, diagnostics: diagnostics)
        }
        let payload = Data(bytes[start...])
        var utf8: [UInt8]
        var name = target.name
        if target.encoding == .utf8 {
            if !explicit {
                utf8 = Array(windows1252(payload).utf8)
                name = "windows-1252"
                diagnostics.append(FeedDiagnostic(kind: "invalidUTF8", severity: .repaired,
                                                  message: "The document is not valid UTF-8 and declares no encoding; decoded as windows-1252"))
            } else {
                utf8 = Array(String(decoding: payload, as: UTF8.self).utf8)
                diagnostics.append(FeedDiagnostic(kind: "invalidUTF8", severity: .repaired,
                                                  message: "Invalid UTF-8 sequences were replaced with U+FFFD"))
            }
        } else if target.encoding == .windowsCP1252 {
            utf8 = Array(windows1252(payload).utf8)
        } else if let text = String(data: payload, encoding: target.encoding) {
            utf8 = Array(text.utf8)
        } else if String(data: Data("<a/>".utf8), encoding: target.encoding) == nil,
                  target.encoding != .utf16, target.encoding != .utf32 {
            throw FeedParsingError(.unsupportedEncoding, "The encoding \(target.name) is not supported by Foundation on this platform")
        } else if let text = String(data: payload, encoding: .utf8) {
            utf8 = Array(text.utf8)
            name = "utf-8"
            diagnostics.append(FeedDiagnostic(kind: "encodingMismatch", severity: .repaired,
                                              message: "The document is not valid \(target.name) but is valid UTF-8; decoded as UTF-8"))
        } else if [String.Encoding.utf16, .utf16BigEndian, .utf16LittleEndian, .utf32, .utf32BigEndian, .utf32LittleEndian]
                    .contains(target.encoding) {
            throw FeedParsingError(.unsupportedEncoding, "The bytes are not valid \(target.name)")
        } else {
            let (text, badLines) = lineByLine(payload, target.encoding)
            utf8 = Array(text.utf8)
            diagnostics.append(FeedDiagnostic(kind: "encodingErrors", severity: .repaired,
                                              message: "\(badLines) lines contained bytes that are not valid \(target.name); they were replaced with U+FFFD"))
        }
        let normalized = normalizedStart(utf8, from: 0, diagnostics: &diagnostics)
        return Decoded(bytes: normalized, encoding: name, diagnostics: diagnostics)
    }

    /// `bytes[from...]` without a BOM that survived transcoding or leading whitespace (an XML declaration must come
    /// first), and with a leading XML declaration replaced by the UTF-8 one, whether or not it was terminated (an
    /// unterminated one is reported in `diagnostics`). Returns `bytes` itself when nothing changes.
    static func normalizedStart(_ bytes: [UInt8], from start: Int, diagnostics: inout [FeedDiagnostic]) -> [UInt8] {
        var head = start
        if bytes.count - head >= 3, bytes[head] == 0xEF, bytes[head + 1] == 0xBB, bytes[head + 2] == 0xBF { head += 3 }
        while head < bytes.count, FeedXMLDeclaration.isBlank(bytes[head]) { head += 1 }
        guard let declaration = FeedXMLDeclaration.find(in: bytes[head...]) else {
            return head == 0 ? bytes : Array(bytes[head...])
        }
        if !declaration.isTerminated {
            diagnostics.append(FeedDiagnostic(kind: "unterminatedDeclaration", severity: .repaired,
                                              message: "The XML declaration is not closed by \"?>\"; it was replaced by a UTF-8 declaration"))
        }
        // A declaration that already reads exactly as the rewritten one is kept (the rewrite would copy the document).
        if bytes[declaration.range].elementsEqual(utf8Declaration) {
            return head == 0 ? bytes : Array(bytes[head...])
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8Declaration.count + bytes.count - declaration.range.upperBound)
        out.append(contentsOf: utf8Declaration)
        out.append(contentsOf: bytes[declaration.range.upperBound...])
        return out
    }

    static let utf8Declaration: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8)

    /// Whether `bytes` is well-formed UTF-8 (Unicode 15, table 3-7: no overlong forms, surrogates or values past
    /// U+10FFFF), checking ASCII eight bytes at a time.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i < n {
            // ASCII 32 bytes at a time (four words or'ed), then 8.
            while i + 32 <= n {
                let p = UnsafeRawPointer(base + i)
                let any = p.loadUnaligned(as: UInt64.self) | p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | p.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                if any & highs != 0 { break }
                i += 32
            }
            while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & highs == 0 { i += 8 }
            guard i < n else { return true }
            let lead = base[i]
            if lead < 0x80 { i += 1; continue }
            @inline(__always) func continuation(_ k: Int) -> Bool { k < n && base[k] & 0xC0 == 0x80 }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(i + 1) else { return false }
                i += 2
            case 0xE0...0xEF:
                guard i + 1 < n else { return false }
                let second = base[i + 1]
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                guard second >= low, second <= high, continuation(i + 2) else { return false }
                i += 3
            case 0xF0...0xF4:
                guard i + 1 < n else { return false }
                let second = base[i + 1]
                let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                guard second >= low, second <= high, continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            default:
                return false
            }
        }
        return true
    }

    /// Decodes windows-1252 by hand: Foundation on Linux rejects the five undefined bytes (0x81, 0x8D, 0x8F,
    /// 0x90, 0x9D) instead of mapping them, which would fail whole documents. ISO-8859-1 labels use this too.
    static func windows1252(_ data: Data) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(data.count)
        for byte in data {
            let value: UInt32 = (0x80...0x9F).contains(byte) ? FeedHTMLEntities.windows1252C1[Int(byte - 0x80)] : UInt32(byte)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// Decodes an ASCII-compatible legacy encoding line by line, so that one corrupt character costs one line's
    /// non-ASCII text (replaced by U+FFFD) rather than the whole document.
    static func lineByLine(_ data: Data, _ encoding: String.Encoding) -> (String, Int) {
        var result = ""
        var bad = 0
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { result += "\n" }
            if let text = String(data: Data(line), encoding: encoding) {
                result += text
                continue
            }
            bad += 1
            var previousWasBad = false
            for byte in line {
                if byte < 0x80 {
                    result.unicodeScalars.append(Unicode.Scalar(byte))
                    previousWasBad = false
                } else if !previousWasBad {
                    result += "\u{FFFD}"
                    previousWasBad = true
                }
            }
        }
        return (result, bad)
    }
}
