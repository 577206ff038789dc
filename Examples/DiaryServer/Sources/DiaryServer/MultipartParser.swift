import DiarySDK
import Foundation

/// Reads the file parts of a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1.1).
///
/// Every malformed shape (no or an empty boundary, no delimiter, no closing delimiter, a part without headers, too
/// many parts) is a `DiaryError` with code `invalid_input`: the parser never traps on what a client sends.
enum MultipartParser {
    /// One file part.
    struct Part {
        var contentType: String
        var data: Data
    }

    /// The longest boundary RFC 2046 allows.
    static let maximumBoundaryLength = 70

    /// The parts of `body`.
    /// - Parameters:
    ///   - contentType: The request's `Content-Type`, with its `boundary` parameter.
    ///   - maximumParts: The most parts accepted; one more is refused without reading further.
    /// - Throws: `DiaryError` (invalid input) for a malformed body or too many parts.
    static func parse(_ body: Data, contentType: String, maximumParts: Int) throws -> [Part] {
        let delimiter = Data("--\(try boundary(in: contentType))".utf8)
        guard var current = body.range(of: delimiter) else {
            throw DiaryError.invalid("body", .invalidFormat, "the multipart body has no parts")
        }
        var parts: [Part] = []
        while true {
            let start = current.upperBound
            if body[start...].starts(with: Data("--".utf8)) { break }
            guard let next = body.range(of: delimiter, in: start..<body.endIndex) else {
                throw DiaryError.invalid("body", .invalidFormat, "the multipart body is not terminated")
            }
            guard parts.count < maximumParts else {
                throw DiaryError.invalid("files", .tooMany, "one upload carries at most \(maximumParts) images")
            }
            parts.append(try part(body[start..<next.lowerBound]))
            current = next
        }
        return parts
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type.
    /// - Throws: `DiaryError` when it is missing, empty or longer than 70 characters.
    static func boundary(in contentType: String) throws -> String {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !value.isEmpty, value.utf8.count <= maximumBoundaryLength else {
                throw DiaryError.invalid(
                    "Content-Type", .invalidFormat, "a multipart boundary has 1 to \(maximumBoundaryLength) characters")
            }
            return value
        }
        throw DiaryError.invalid("Content-Type", .invalidFormat, "multipart/form-data needs a boundary")
    }

    /// One part between two delimiters: headers, a blank line, the bytes.
    private static func part(_ chunk: Data) throws -> Part {
        var chunk = chunk
        if chunk.starts(with: Data("\r\n".utf8)) { chunk = chunk.dropFirst(2) }
        if chunk.suffix(2).elementsEqual(Data("\r\n".utf8)) { chunk = chunk.dropLast(2) }
        guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else {
            throw DiaryError.invalid("body", .invalidFormat, "a multipart part has no headers")
        }
        let headers = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
        var type = "application/octet-stream"
        for line in headers.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-type:") {
            type = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
        }
        return Part(contentType: type, data: Data(chunk[split.upperBound...]))
    }
}
