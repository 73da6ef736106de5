import Foundation
import LocalCloud

/// Record values as the console shows and edits them: text in, text out. The text is data:
/// templates escape it, and nothing here is ever markup.
enum ConsoleValue {
    /// The value as one line of text.
    static func text(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): text
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "1" : "0"
        case .date(let date): date.formatted(.iso8601)
        case .bytes(let data): "\(data.count) bytes"
        case .location(let location): "\(location.latitude), \(location.longitude)"
        case .reference(let reference): reference.recordID.recordName
        case .asset(let asset): asset.size.map { "asset, \($0) bytes" } ?? "asset"
        case .list(let items): items.map(text).joined(separator: "\n")
        }
    }

    /// The value as the editor's text: as ``text(_:)``, but bytes in full, as base64.
    static func editText(_ value: FieldValue) -> String {
        if case .bytes(let data) = value { return data.base64EncodedString() }
        return text(value)
    }

    /// Whether the console edits this type: as text (bytes as base64, a location as latitude and
    /// longitude), or an asset by uploading a file. Lists of bytes, locations and assets are shown only.
    static func isEditable(_ type: FieldType) -> Bool {
        switch type {
        case .string, .int64, .double, .timestamp, .reference, .bytes, .location, .asset: true
        case .list(let element):
            switch element {
            case .string, .int64, .double, .timestamp, .reference: true
            default: false
            }
        }
    }

    /// A location's latitude and longitude as the editor's two inputs show them.
    static func coordinates(_ value: FieldValue?) -> (latitude: String, longitude: String) {
        guard case .location(let location)? = value else { return ("", "") }
        return (String(location.latitude), String(location.longitude))
    }

    /// The Web Services `{value, type}` of `text` for a field of `type`: the same decoder as the API
    /// then reads it. A list takes one item per line.
    ///
    /// - Throws: `CloudError(.invalidArguments)` naming the field when the text is not such a value.
    static func json(_ text: String, type: FieldType, field: String) throws -> JSONValue {
        if case .list(let element) = type {
            let items = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let values = try items.map { try scalar($0, type: element, field: field) }
            return .object(["value": .array(values), "type": .string(element.description + "_LIST")])
        }
        return .object(["value": try scalar(text, type: type, field: field), "type": .string(type.description)])
    }

    private static func scalar(_ text: String, type: FieldType, field: String) throws -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch type {
        case .string: return .string(text)
        case .int64:
            guard let number = Int64(trimmed) else { throw invalid(field, "a whole number", text) }
            return .int(number)
        case .double:
            guard let number = Double(trimmed), number.isFinite else { throw invalid(field, "a number", text) }
            return .number(number)
        case .timestamp:
            if let milliseconds = Int64(trimmed) { return .int(milliseconds) }
            guard let date = try? Date(trimmed, strategy: .iso8601) else {
                throw invalid(field, "a date (2026-01-31T12:00:00Z) or milliseconds since 1970", text)
            }
            return .int(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .reference:
            guard !trimmed.isEmpty else { throw invalid(field, "a record name", text) }
            return .object(["recordName": .string(trimmed), "action": .string("NONE")])
        case .bytes:
            // Base64 as the API takes it; line breaks (a pasted, wrapped value) are not part of it.
            return .string(trimmed.filter { !$0.isWhitespace })
        case .location:
            // "latitude, longitude": the API's decoder checks the ranges.
            let parts = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                throw invalid(field, "a latitude and a longitude in degrees", text)
            }
            return .object(["latitude": .number(latitude), "longitude": .number(longitude)])
        default:
            throw CloudError(.invalidArguments, "Field '\(field)' (\(type)) cannot be edited as text here")
        }
    }

    private static func invalid(_ field: String, _ expected: String, _ text: String) -> CloudError {
        CloudError(.invalidArguments, "Field '\(field)' needs \(expected), not '\(text.prefix(60))'")
    }
}
