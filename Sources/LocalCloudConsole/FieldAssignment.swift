import Foundation
import LocalCloud

/// A `field=value` (or `field:TYPE=value`) argument of `records create`.
struct FieldAssignment {
    var field: String
    var value: any RecordValue

    /// Parses one argument, typing the value by the schema when the field exists there.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a missing `=` or a value that does not fit its type.
    init(_ argument: String, schemaType: String?) throws {
        guard let equals = argument.firstIndex(of: "=") else {
            throw CloudError(.invalidArguments, "Expected field=value, got '\(argument)'")
        }
        var name = String(argument[..<equals])
        let text = String(argument[argument.index(after: equals)...])
        var type = schemaType
        if let colon = name.firstIndex(of: ":") {
            type = name[name.index(after: colon)...].uppercased()
            name = String(name[..<colon])
        }
        field = name
        value = try Self.value(text, type: type ?? Self.inferredType(text), field: name)
    }

    static func inferredType(_ text: String) -> String {
        if Int64(text) != nil { return "INT64" }
        if Double(text) != nil, text.contains(".") { return "DOUBLE" }
        if text == "true" || text == "false" { return "BOOL" }
        if text.count >= 10, RecordJSON.parseDate(text) != nil { return "TIMESTAMP" }
        return "STRING"
    }

    static func value(_ text: String, type: String, field: String) throws -> any RecordValue {
        func bad() -> CloudError { CloudError(.invalidArguments, "Field '\(field)': '\(text)' is not a valid \(type)") }
        switch type {
        case "STRING": return text
        case "INT64", "BOOL":
            if let v = Int64(text) { return v }
            if text == "true" || text == "false" { return text == "true" }
            throw bad()
        case "DOUBLE":
            guard let v = Double(text) else { throw bad() }
            return v
        case "TIMESTAMP":
            guard let v = RecordJSON.parseDate(text) else { throw bad() }
            return v
        case "LOCATION":
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 || parts.count == 3 else { throw bad() }
            return Location(latitude: parts[0], longitude: parts[1], altitude: parts.count == 3 ? parts[2] : nil)
        case "REFERENCE":
            return Record.Reference(recordID: Record.ID(recordName: text), action: .none)
        case "BYTES":
            guard let v = Data(base64Encoded: text) else { throw bad() }
            return v
        case "ASSET":
            throw CloudError(.invalidArguments, "Field '\(field)' is an ASSET: use --asset \(field)=PATH")
        default:
            if type.hasPrefix("LIST<") {
                let element = String(type.dropFirst(5).dropLast())
                let items = text.isEmpty ? [] : text.split(separator: ",").map(String.init)
                switch element {
                case "STRING": return items
                case "INT64": return try items.map { guard let v = Int64($0) else { throw bad() }; return v }
                case "DOUBLE": return try items.map { guard let v = Double($0) else { throw bad() }; return v }
                default: throw CloudError(.invalidArguments, "Field '\(field)': set \(type) values through records import")
                }
            }
            throw CloudError(.invalidArguments, "Field '\(field)': unknown type \(type)")
        }
    }
}
