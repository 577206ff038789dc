import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store attachment files")
struct AttachmentFileTests {
    @Test func attachmentsAreFilesNamedByUUIDAndDeletedWithTheirOwner() async throws {
        let directory = TestDirectory("attachments")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        let image = try await sdk.attachments.upload(AttachmentUpload(data: tinyPNG, contentType: "image/png"))
        let file = directory.file("attachments").appendingPathComponent(image.id.description)
        #expect(try Data(contentsOf: file) == tinyPNG)
        #expect(UUID(uuidString: file.lastPathComponent) != nil)

        let entry = try await sdk.diaries.write(DiaryDraft(body: "with a picture", images: [image]))
        #expect(FileManager.default.fileExists(atPath: file.path))
        try await sdk.diaries.delete(entry.id)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try await backend.close()
    }

    @Test func filesNoRowRefersToAreRemovedOnOpen() async throws {
        let directory = TestDirectory("orphans")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        let kept = try await sdk.attachments.upload(AttachmentUpload(data: tinyPNG, contentType: "image/png"))
        try await backend.close()
        // An upload whose row never got written: the crash came between the file and the transaction.
        let orphan = directory.file("attachments").appendingPathComponent(UUID().uuidString.lowercased())
        try tinyPNG.write(to: orphan)

        let reopened = try directory.open()
        #expect(reopened.openReport.removedOrphanAttachments == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        let keptFile = directory.file("attachments").appendingPathComponent(kept.id.description)
        #expect(FileManager.default.fileExists(atPath: keptFile.path))
        try await reopened.close()
    }
}
