import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

@Suite("Multipart parser")
struct MultipartParserTests {
    @Test func readsEveryFilePartWithItsType() throws {
        let body = "--b\r\nContent-Disposition: form-data; name=\"file\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n"
            + "--b\r\nContent-Type: image/jpeg\r\n\r\nJPEG\r\n--b--\r\n"
        let parts = try MultipartParser.parse(Data(body.utf8), contentType: "multipart/form-data; boundary=\"b\"", maximumParts: 4)
        #expect(parts.map(\.contentType) == ["image/png", "image/jpeg"])
        #expect(parts.map { String(decoding: $0.data, as: UTF8.self) } == ["PNG", "JPEG"])
    }

    @Test(arguments: [
        ("multipart/form-data; boundary=", "--\r\n\r\nx\r\n----"),
        ("multipart/form-data; boundary=\"\"", "----"),
        ("multipart/form-data; boundary=;", "--"),
        ("multipart/form-data", "--b--"),
        ("multipart/form-data; boundary=\(String(repeating: "b", count: 71))", "--b--"),
        ("multipart/form-data; boundary=b", ""),
        ("multipart/form-data; boundary=b", "--b"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Type: image/png\r\n\r\nunterminated"),
        ("multipart/form-data; boundary=b", "--b\r\nno headers\r\n--b--"),
        ("multipart/form-data; boundary=b", String(repeating: "--b\r\nContent-Type: image/png\r\n\r\nz\r\n", count: 5) + "--b--"),
    ])
    func malformedBodiesAreInvalidInput(_ type: String, _ body: String) {
        let error = #expect(throws: DiaryError.self) {
            try MultipartParser.parse(Data(body.utf8), contentType: type, maximumParts: 4)
        }
        #expect(error?.code == .invalidInput)
    }
}
