import DiarySDK
import Foundation

/// Uploaded images over HTTP: `POST /v1/attachments` (the raw bytes) and `GET /v1/attachments/{id}`.
struct HTTPAttachmentRepository: AttachmentRepository {
    let client: HTTPClient

    func upload(_ upload: AttachmentUpload) async throws -> ImageReference {
        var request = HTTPRequest("POST", "/v1/attachments")
        request.body = upload.data
        request.contentType = upload.contentType
        request.deduplicate = false
        return try await client.send(request, as: ImageReference.self)
    }

    func data(for id: Attachment.ID) async throws -> Data {
        try await client.send(HTTPRequest("GET", "/v1/attachments/\(id.path)"))
    }
}
