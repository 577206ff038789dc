import DiarySDK
import Foundation
import Hummingbird

extension DiaryAPI {
    /// The most images one multipart upload may carry.
    static let maximumImagesPerUpload = 4

    func registerAttachments(_ router: Router<DiaryRequestContext>) {
        route(router, .post, "/v1/attachments") { call in
            let contentType = call.request.headers[.contentType] ?? ""
            if contentType.lowercased().hasPrefix("multipart/form-data") {
                let parts = try MultipartParser.parse(call.body, contentType: contentType)
                guard !parts.isEmpty else { throw DiaryError.invalid("files", .blank, "the upload has no files") }
                guard parts.count <= Self.maximumImagesPerUpload else {
                    throw DiaryError.invalid(
                        "files", .tooMany, "one upload carries at most \(Self.maximumImagesPerUpload) images, got \(parts.count)")
                }
                var references: [ImageReference] = []
                for part in parts {
                    references.append(try await call.engine.upload(AttachmentUpload(data: part.data, contentType: part.contentType)))
                }
                return try .created(Wrapped(value: references))
            }
            return try .created(try await call.engine.upload(AttachmentUpload(data: call.body, contentType: contentType)))
        }
        route(router, .get, "/v1/attachments/:attachmentID") { call in
            let data = try await call.engine.data(for: try call.id("attachmentID", Attachment.self))
            return .bytes(data, contentType: Self.sniffContentType(data))
        }
    }

    static func sniffContentType(_ data: Data) -> String {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count >= 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) { return "image/heic" }
        return "application/octet-stream"
    }
}

/// Reads the file parts of a `multipart/form-data` body.
enum MultipartParser {
    struct Part {
        var contentType: String
        var data: Data
    }

    static func parse(_ body: Data, contentType: String) throws -> [Part] {
        guard let boundaryRange = contentType.range(of: "boundary=") else {
            throw DiaryError.invalid("Content-Type", .invalidFormat, "multipart/form-data needs a boundary")
        }
        let boundary = contentType[boundaryRange.upperBound...].split(separator: ";")[0].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Part] = []
        var searchStart = body.startIndex
        guard var current = body.range(of: delimiter, in: searchStart..<body.endIndex) else {
            throw DiaryError.invalid("body", .invalidFormat, "the multipart body has no parts")
        }
        while true {
            searchStart = current.upperBound
            if body[searchStart...].starts(with: Data("--".utf8)) { break }
            guard let next = body.range(of: delimiter, in: searchStart..<body.endIndex) else {
                throw DiaryError.invalid("body", .invalidFormat, "the multipart body is not terminated")
            }
            var chunk = body[searchStart..<next.lowerBound]
            if chunk.starts(with: Data("\r\n".utf8)) { chunk = chunk.dropFirst(2) }
            if chunk.suffix(2) == Data("\r\n".utf8) { chunk = chunk.dropLast(2) }
            guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else {
                throw DiaryError.invalid("body", .invalidFormat, "a multipart part has no headers")
            }
            let headers = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
            var type = "application/octet-stream"
            for line in headers.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-type:") {
                type = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            }
            parts.append(Part(contentType: type, data: Data(chunk[split.upperBound...])))
            current = next
        }
        return parts
    }
}
