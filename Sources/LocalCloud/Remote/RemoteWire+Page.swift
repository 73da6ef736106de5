import Foundation

// A `records/query` answer, read into records: the client's side of every remote page.
extension RemoteWire {
    /// The record items of a `records/query` answer, in order.
    /// - Throws: the error of the first item the server refused.
    static func pageItems(_ answer: JSONValue) throws -> [JSONValue] {
        let items = answer["records"]?.arrayValue ?? []
        for item in items {
            if let error = RemoteStore.itemError(item) { throw error }
        }
        return items
    }

    /// The records of a `records/query` answer, in order; `record` turns each item into a record.
    /// An item the server refused throws its error (before any item is turned into a record).
    static func pageRecords(_ answer: JSONValue, zoneID: RecordZone.ID, record: (JSONValue) throws -> Record) throws -> [Record] {
        try pageItems(answer).map(record)
    }

    /// A `records/query` answer's bytes decoded into records, as the remote store decodes a page
    /// from the server (no assets fetched): what `localcloud-bench decode` measures.
    ///
    /// ```swift
    /// let records = try RemoteWire.decodePage(response.body, zoneID: .default)
    /// ```
    /// - Throws: `invalidArguments` when the bytes are not JSON, or the item's error.
    package static func decodePage(_ bytes: [UInt8], zoneID: RecordZone.ID) throws -> [Record] {
        try pageRecords(JSONValue.parse(bytes), zoneID: zoneID) { try serverRecord($0, zoneID: zoneID, assetFile: { _ in nil }) }
    }

    /// The same through Foundation's `JSONDecoder`, as the remote store decoded a page before
    /// ``JSONParser`` read it: kept only as the benchmark's baseline.
    package static func decodePageWithJSONDecoder(_ bytes: [UInt8], zoneID: RecordZone.ID) throws -> [Record] {
        let answer = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        return try pageRecords(answer, zoneID: zoneID) { try serverRecord($0, zoneID: zoneID, assetFile: { _ in nil }) }
    }
}
