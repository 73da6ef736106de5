import Foundation
import LocalCloud

/// A `multipart/form-data` body (RFC 7578), as the record form posts it when it carries a file:
/// its text fields as a ``ConsoleForm`` and its files by field name.
///
/// ```swift
/// let parts = try ConsoleMultipart(body: bytes, contentType: "multipart/form-data; boundary=XyZ")
/// parts.form["csrf"]; parts.files["file.image"]?.bytes
/// ```
struct ConsoleMultipart: Sendable {
    struct File: Sendable {
        var filename: String
        var bytes: [UInt8]
    }

    var form: ConsoleForm
    var files: [String: File]

    /// The boundary of a `multipart/form-data` content type; `nil` for any other type.
    static func boundary(_ contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            var value = String(part.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// - Throws: `CloudError(.invalidArguments)` for a body that is not such a form.
    init(body: [UInt8], boundary: String) throws {
        let delimiter = Array(("--" + boundary).utf8)
        let invalid = CloudError(.invalidArguments, "The form is not valid multipart/form-data")
        var fields: [String: String] = [:]
        var files: [String: File] = [:]
        guard var cursor = Self.find(delimiter, in: body, from: 0) else { throw invalid }
        cursor += delimiter.count
        while true {
            // After a delimiter: `--` ends the body, CRLF starts a part.
            if body[cursor...].starts(with: [0x2D, 0x2D]) { break }
            guard body[cursor...].starts(with: [0x0D, 0x0A]) else { throw invalid }
            let headersStart = cursor + 2
            guard let headersEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: headersStart),
                  let next = Self.find([0x0D, 0x0A] + delimiter, in: body, from: headersEnd + 4) else { throw invalid }
            let headers = String(decoding: body[headersStart..<headersEnd], as: UTF8.self)
            let content = Array(body[(headersEnd + 4)..<next])
            guard let disposition = headers.split(separator: "\r\n").first(where: {
                $0.lowercased().hasPrefix("content-disposition:")
            }), let name = Self.parameter("name", of: disposition) else { throw invalid }
            if let filename = Self.parameter("filename", of: disposition) {
                if files[name] == nil { files[name] = File(filename: filename, bytes: content) }
            } else if fields[name] == nil {
                fields[name] = String(decoding: content, as: UTF8.self)
            }
            cursor = next + 2 + delimiter.count
            guard cursor <= body.count else { throw invalid }
        }
        form = ConsoleForm(fields)
        self.files = files
    }

    /// `name="value"` in a Content-Disposition line (quoted, as browsers send it).
    private static func parameter(_ key: String, of line: Substring) -> String? {
        for part in line.split(separator: ";").dropFirst() {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix(key + "=") else { continue }
            var value = String(pair.dropFirst(key.count + 1))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.replacingOccurrences(of: "%22", with: "\"")
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
