import DiarySDK
import Foundation

/// How far an upload has got.
public struct UploadProgress: Hashable, Sendable {
    /// Bytes of the request body sent so far.
    public var bytesSent: Int64
    /// The request body's size.
    public var totalBytes: Int64

    /// Creates a progress value.
    /// - Parameters:
    ///   - bytesSent: Bytes sent so far.
    ///   - totalBytes: The body's size.
    public init(bytesSent: Int64, totalBytes: Int64) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
    }

    /// `bytesSent / totalBytes`, from 0 to 1.
    public var fractionCompleted: Double {
        totalBytes > 0 ? min(1, Double(bytesSent) / Double(totalBytes)) : 1
    }
}

/// Several images uploading in one multipart request: follow ``progress``, then await ``images``.
///
/// ```swift
/// let upload = backend.uploadImages([photo1, photo2])
/// Task { for await step in upload.progress { bar.value = step.fractionCompleted } }
/// let images = try await upload.images
/// _ = try await sdk.posts.publish(PostDraft(title: "Trip", body: "…", images: images))
/// ```
public final class ImageUpload: Sendable {
    /// Progress events, ending when the upload finishes (successfully or not). The first reports 0 bytes, the last
    /// (after a success) the whole body.
    public let progress: AsyncStream<UploadProgress>
    private let task: Task<[ImageReference], any Error>

    init(progress: AsyncStream<UploadProgress>, task: Task<[ImageReference], any Error>) {
        self.progress = progress
        self.task = task
    }

    /// The uploaded images, in the order given.
    /// - Throws: ``DiaryError``: `.invalidInput` for no images, more than four, or a file that is not an image or is
    ///   too large; `.cancelled` after ``cancel()``; any request failure.
    public var images: [ImageReference] {
        get async throws { try await task.value }
    }

    /// Cancels the upload (the request is cancelled too).
    public func cancel() {
        task.cancel()
    }
}

extension HTTPBackend {
    /// The most images one upload carries (a post holds at most four).
    public static let maximumImagesPerUpload = 4

    /// Uploads one to four images in one `multipart/form-data` request, reporting progress.
    ///
    /// The request carries an idempotency key, so it is retried like any write. Progress comes from
    /// `URLSessionTaskDelegate.urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)`; where the
    /// platform's URL loading reports no intermediate progress, only the first (0) and last (all bytes) events arrive.
    /// - Parameter uploads: The images (bytes and `image/*` type).
    /// - Returns: The upload, already started.
    public func uploadImages(_ uploads: [AttachmentUpload]) -> ImageUpload {
        let (stream, continuation) = AsyncStream<UploadProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let client = self.client
        let task = Task { () throws -> [ImageReference] in
            defer { continuation.finish() }
            guard !uploads.isEmpty else { throw DiaryError.invalid("images", .blank, "an upload needs at least one image") }
            guard uploads.count <= Self.maximumImagesPerUpload else {
                throw DiaryError.invalid(
                    "images", .tooMany,
                    "one upload carries at most \(Self.maximumImagesPerUpload) images, got \(uploads.count)")
            }
            let body = MultipartBody(files: uploads)
            var request = HTTPRequest("POST", "/v1/attachments")
            request.body = body.data
            request.contentType = body.contentType
            request.deduplicate = false
            let total = Int64(body.data.count)
            continuation.yield(UploadProgress(bytesSent: 0, totalBytes: total))
            request.progress = { sent, expected in
                continuation.yield(UploadProgress(bytesSent: sent, totalBytes: expected > 0 ? expected : total))
            }
            let images = try await client.send(request, as: Wrapped<[ImageReference]>.self).value
            continuation.yield(UploadProgress(bytesSent: total, totalBytes: total))
            return images
        }
        return ImageUpload(progress: stream, task: task)
    }
}

/// A `multipart/form-data` body with one `file` part per image.
struct MultipartBody {
    let boundary = "diary-" + UUID().uuidString.lowercased()
    let data: Data

    init(files: [AttachmentUpload]) {
        var data = Data()
        for (index, file) in files.enumerated() {
            data.append(Data("--\(boundary)\r\n".utf8))
            data.append(Data("Content-Disposition: form-data; name=\"file\"; filename=\"image\(index + 1)\"\r\n".utf8))
            data.append(Data("Content-Type: \(file.contentType)\r\n\r\n".utf8))
            data.append(file.data)
            data.append(Data("\r\n".utf8))
        }
        data.append(Data("--\(boundary)--\r\n".utf8))
        self.data = data
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }
}
