import Testing
@testable import LocalCloudServer

@Suite("console: multipart/form-data of the record editor")
struct ConsoleMultipartTests {
    private func body(_ boundary: String, _ parts: [(headers: String, content: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return bytes + Array("--\(boundary)--\r\n".utf8)
    }

    @Test func fieldsAndFiles() throws {
        // A file holding CRLF and the boundary without its leading CRLF, as binary files may.
        let file: [UInt8] = [0xFF, 0xD8, 0x0D, 0x0A, 0x00] + Array("--XyZ".utf8) + [0x0D, 0x0A]
        let bytes = body("XyZ", [
            ("Content-Disposition: form-data; name=\"csrf\"", Array("abc".utf8)),
            ("Content-Disposition: form-data; name=\"f.name\"", Array("Thai\r\nPlace".utf8)),
            ("Content-Disposition: form-data; name=\"file.image\"; filename=\"a b.jpg\"\r\nContent-Type: image/jpeg", file),
            ("Content-Disposition: form-data; name=\"file.empty\"; filename=\"\"", []),
        ])
        let parts = try ConsoleMultipart(body: bytes, boundary: "XyZ")
        #expect(parts.form["csrf"] == "abc")
        #expect(parts.form["f.name"] == "Thai\r\nPlace")
        #expect(parts.files["file.image"]?.bytes == file)
        #expect(parts.files["file.image"]?.filename == "a b.jpg")
        #expect(parts.files["file.empty"]?.bytes == [])
    }

    @Test func boundaryFromTheContentType() {
        #expect(ConsoleMultipart.boundary("multipart/form-data; boundary=----WebKitFormBoundaryAbc") == "----WebKitFormBoundaryAbc")
        #expect(ConsoleMultipart.boundary("multipart/form-data; boundary=\"q r\"") == "q r")
        #expect(ConsoleMultipart.boundary("application/x-www-form-urlencoded") == nil)
        #expect(ConsoleMultipart.boundary("multipart/form-data") == nil)
        #expect(ConsoleMultipart.boundary("multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
    }

    @Test func truncatedOrForeignBodiesAreRefused() {
        let whole = body("XyZ", [("Content-Disposition: form-data; name=\"csrf\"", Array("abc".utf8))])
        for cut in [0, 5, 20, whole.count - 10] {
            #expect(throws: (any Error).self) { try ConsoleMultipart(body: Array(whole.prefix(cut)), boundary: "XyZ") }
        }
        #expect(throws: (any Error).self) { try ConsoleMultipart(body: whole, boundary: "Other") }
        let noName = body("XyZ", [("Content-Disposition: form-data", Array("x".utf8))])
        #expect(throws: (any Error).self) { try ConsoleMultipart(body: noName, boundary: "XyZ") }
    }
}
