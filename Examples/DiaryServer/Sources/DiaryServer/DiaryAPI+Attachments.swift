@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

extension DiaryAPI {
    /// The most images one multipart upload may carry.
    static let maximumImagesPerUpload = 4

    func registerAttachments(_ router: Router<DiaryRequestContext>) {
        route(router, .post, "/v1/attachments", body: .upload) { call in
            let contentType = call.request.headers[.contentType] ?? ""
            if contentType.lowercased().hasPrefix("multipart/form-data") {
                let parts = try MultipartParser.parse(
                    call.body, contentType: contentType, maximumParts: Self.maximumImagesPerUpload)
                guard !parts.isEmpty else { throw DiaryError.invalid("files", .blank, "the upload has no files") }
                var references: [ImageReference] = []
                for part in parts {
                    references.append(try await call.engine.upload(AttachmentUpload(data: part.data, contentType: part.contentType)))
                }
                return try .created(Wrapped(value: references))
            }
            guard contentType.lowercased().hasPrefix("image/") else {
                throw RequestLimits.unsupportedType(contentType, expected: "an image/* type or multipart/form-data")
            }
            return try .created(try await call.engine.upload(AttachmentUpload(data: call.body, contentType: contentType)))
        }
        route(router, .get, "/v1/attachments/:attachmentID") { call in
            let data = try await call.engine.data(for: try call.id("attachmentID", Attachment.self))
            return .bytes(data, contentType: Self.sniffContentType(data))
        }
    }

    /// The type of an image from its first bytes (stored attachments are always images the engine checked).
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
