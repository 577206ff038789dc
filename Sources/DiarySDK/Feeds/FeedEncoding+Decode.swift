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

    /// Transcodes `data` to UTF-8 bytes (without BOM or leading whitespace) and rewrites the XML declaration.
    static func decode(_ data: Data, httpCharset: String?) throws -> Decoded {
        let bytes = [UInt8](data)
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
        let payload = Data(bytes[start...])
        let target = chosen ?? ("utf-8", .utf8)
        var utf8: [UInt8]
        var name = target.name
        if target.encoding == .utf8 {
            if String(data: payload, encoding: .utf8) != nil {
                utf8 = [UInt8](payload)
            } else if !explicit {
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
        // Drop a BOM that survived transcoding and leading whitespace (an XML declaration must come first).
        var head = 0
        if utf8.count >= 3, utf8[0] == 0xEF, utf8[1] == 0xBB, utf8[2] == 0xBF { head = 3 }
        while head < utf8.count, utf8[head] == 0x20 || utf8[head] == 0x09 || utf8[head] == 0x0A || utf8[head] == 0x0D { head += 1 }
        if head > 0 { utf8.removeFirst(head) }
        rewriteDeclaration(&utf8)
        return Decoded(bytes: utf8, encoding: name, diagnostics: diagnostics)
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

    /// Replaces a leading `<?xml …?>` with a UTF-8 declaration.
    static func rewriteDeclaration(_ bytes: inout [UInt8]) {
        let prefix: [UInt8] = Array("<?xml".utf8)
        guard bytes.count > 7, Array(bytes[0..<5]) == prefix, bytes[5] == 0x20 || bytes[5] == 0x09 || bytes[5] == 0x0A || bytes[5] == 0x0D
        else { return }
        var index = 5
        while index + 1 < bytes.count, index < 1_024 {
            if bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") {
                bytes.replaceSubrange(0...(index + 1), with: Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8))
                return
            }
            index += 1
        }
    }
}
