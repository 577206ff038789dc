/// The XML declaration at the start of a document, found by one rule that is defined for every input.
///
/// Encoding detection reads the declared encoding through it and ``FeedEncoding/normalizedStart(_:from:diagnostics:)``
/// replaces exactly the bytes it spans, so the XML parser never sees a declaration other than the UTF-8 one: a
/// declaration it would act on (naming an encoding the bytes are no longer in) cannot slip past the rewrite.
///
/// libxml2 treats `<?xml` followed by a blank at the very start as the declaration. That is what this type looks for,
/// after a UTF-8 byte-order mark and whitespace (both removed before parsing). The declaration ends at its `?>`; when
/// that is missing before the first `<` (a declaration never contains one), it ends after the last `>` before that
/// `<` (`<?xml version="1.0" encoding="ks_c_5601-1987">`, as old Korean blogs serve it), else right before that `<`,
/// else at the end of the document.
struct FeedXMLDeclaration: Equatable {
    /// The bytes it spans, from `<?xml` to its end.
    var range: Range<Int>
    /// The `encoding` pseudo-attribute's value, if any (read up to its closing quote or the declaration's end).
    var encoding: String?
    /// Whether it ends with `?>`.
    var isTerminated: Bool

    /// The declaration at the start of `bytes` (indices are those of `bytes`), or `nil` when there is none.
    /// - Complexity: O(*n*) in the length of the declaration; at worst up to the first `<` or the end of the input.
    static func find(in bytes: ArraySlice<UInt8>) -> FeedXMLDeclaration? {
        var head = bytes.startIndex
        let end = bytes.endIndex
        if end - head >= 3, bytes[head] == 0xEF, bytes[head + 1] == 0xBB, bytes[head + 2] == 0xBF { head += 3 }
        while head < end, isBlank(bytes[head]) { head += 1 }
        guard end - head > 5, bytes[head] == UInt8(ascii: "<"), bytes[head + 1] == UInt8(ascii: "?"),
              bytes[head + 2] == UInt8(ascii: "x"), bytes[head + 3] == UInt8(ascii: "m"), bytes[head + 4] == UInt8(ascii: "l"),
              isBlank(bytes[head + 5])
        else { return nil }
        var i = head + 6
        var lastAngle: Int?
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "?"), i + 1 < end, bytes[i + 1] == UInt8(ascii: ">") {
                return FeedXMLDeclaration(range: head..<(i + 2), encoding: encoding(in: bytes[(head + 5)..<i]), isTerminated: true)
            }
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: ">") { lastAngle = i }
            i += 1
        }
        let contentEnd = lastAngle ?? i
        let declarationEnd = lastAngle.map { $0 + 1 } ?? i
        return FeedXMLDeclaration(range: head..<declarationEnd, encoding: encoding(in: bytes[(head + 5)..<contentEnd]),
                                  isTerminated: false)
    }

    /// The value after the first `encoding`, its `=` and blanks, between quotes (the closing one may be missing).
    private static func encoding(in content: ArraySlice<UInt8>) -> String? {
        let key = Array("encoding".utf8)
        guard content.count >= key.count,
              let start = (content.startIndex...(content.endIndex - key.count)).first(where: { content[$0...].starts(with: key) })
        else { return nil }
        var i = start + key.count
        while i < content.endIndex, isBlank(content[i]) || content[i] == UInt8(ascii: "=") { i += 1 }
        guard i < content.endIndex, content[i] == UInt8(ascii: "\"") || content[i] == UInt8(ascii: "'") else { return nil }
        let quote = content[i]
        let value = content[(i + 1)...].prefix { $0 != quote }
        guard !value.isEmpty else { return nil }
        var label = ""
        label.unicodeScalars.append(contentsOf: value.map { Unicode.Scalar($0) })
        return label
    }

    /// The four blanks of XML's `S` production.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
