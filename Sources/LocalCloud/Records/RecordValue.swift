import Foundation

/// A value a record field can hold, like `CKRecordValue`.
///
/// String, Int64, Int, Double, Bool, Date, Data, ``Location``, ``Record/Reference``,
/// ``Asset`` and arrays of these conform. Read back with `as?`:
/// `record["name"] as? String`. Integers come back as `Int64`.
public protocol RecordValue: Sendable {}

/// The internal bridge from public values to the stored ``FieldValue``.
protocol FieldValueConvertible {
    var fieldValue: FieldValue { get }
}

extension String: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .string(self) } }
extension Int64: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .int64(self) } }
extension Int: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .int64(Int64(self)) } }
extension Double: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .double(self) } }
extension Bool: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .bool(self) } }
extension Date: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .date(self) } }
extension Data: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .bytes(self) } }
extension Location: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .location(self) } }
extension Record.Reference: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .reference(self) } }
extension Asset: RecordValue, FieldValueConvertible { var fieldValue: FieldValue { .asset(self) } }

extension Array: RecordValue where Element: RecordValue {}

extension Array: FieldValueConvertible where Element: FieldValueConvertible {
    var fieldValue: FieldValue { .list(map(\.fieldValue)) }
}

extension FieldValue {
    /// Converts a public value; `nil` when the type cannot be stored (a custom conformance, a nested list).
    init?(recordValue: any RecordValue) {
        guard let convertible = recordValue as? any FieldValueConvertible else { return nil }
        let value = convertible.fieldValue
        if case .list(let items) = value {
            guard Self.isHomogeneousScalarList(items) else { return nil }
        }
        self = value
    }

    static func isHomogeneousScalarList(_ items: [FieldValue]) -> Bool {
        guard let first = items.first else { return true }
        if case .list = first { return false }
        return items.allSatisfy { $0.kind == first.kind }
    }

    /// The value's kind tag, as stored in the fields JSON.
    var kind: String {
        switch self {
        case .string: "string"
        case .int64: "int64"
        case .double: "double"
        case .bool: "bool"
        case .date: "date"
        case .bytes: "bytes"
        case .location: "location"
        case .reference: "reference"
        case .asset: "asset"
        case .list: "list"
        }
    }

    /// The natural Swift value for reading back through the public API.
    var recordValue: any RecordValue {
        switch self {
        case .string(let v): v
        case .int64(let v): v
        case .double(let v): v
        case .bool(let v): v
        case .date(let v): v
        case .bytes(let v): v
        case .location(let v): v
        case .reference(let v): v
        case .asset(let v): v
        case .list(let items): Self.typedList(items)
        }
    }

    private static func typedList(_ items: [FieldValue]) -> any RecordValue {
        switch items.first {
        case .int64?: items.compactMap { if case .int64(let v) = $0 { v } else { nil } }
        case .double?: items.compactMap { if case .double(let v) = $0 { v } else { nil } }
        case .bool?: items.compactMap { if case .bool(let v) = $0 { v } else { nil } }
        case .date?: items.compactMap { if case .date(let v) = $0 { v } else { nil } }
        case .bytes?: items.compactMap { if case .bytes(let v) = $0 { v } else { nil } }
        case .location?: items.compactMap { if case .location(let v) = $0 { v } else { nil } }
        case .reference?: items.compactMap { if case .reference(let v) = $0 { v } else { nil } }
        case .asset?: items.compactMap { if case .asset(let v) = $0 { v } else { nil } }
        case .string?, .list?, nil: items.compactMap { if case .string(let v) = $0 { v } else { nil } }
        }
    }

    /// Bytes this value counts against the 1 MB record limit (assets count only their reference).
    package var storageSize: Int {
        switch self {
        case .string(let v): v.utf8.count
        case .int64, .double, .bool, .date: 8
        case .bytes(let v): v.count
        case .location: 24
        case .reference(let v): v.recordID.recordName.utf8.count + v.recordID.zoneID.zoneName.utf8.count + 8
        case .asset: 64
        case .list(let items): items.reduce(0) { $0 + $1.storageSize }
        }
    }
}
