import Foundation
import LocalCloud
import PostgresNIO

/// Turns rows selected with ``PostgresStore/recordColumns`` (and any sort columns after them)
/// into records, as the SQLite store's `RecordRowReader` does: text columns are read from the
/// bytes postgres-nio received, the type, zone and user names that repeat from row to row are
/// reused (``RepeatedText``), and the fields are decoded for the given keys only.
struct PostgresRowReader {
    /// The fields to decode, `nil` for all.
    let keys: [String]?
    /// The zone ID every record gets instead of its stored zone's, when set: a shared-database
    /// page names the zone with its owner, and writing it here spares a copy of each record.
    let zoneID: RecordZone.ID?
    /// Where the node keeps its copies of assets (the records' asset URLs point there).
    let assetCache: URL
    private var recordType = RepeatedText()
    private var zone = RepeatedText()
    private var createdBy = RepeatedText()
    private var modifiedBy = RepeatedText()

    init(keys: [String]?, zoneID: RecordZone.ID? = nil, assetCache: URL) {
        self.keys = keys
        self.zoneID = zoneID
        self.assetCache = assetCache
    }

    mutating func record(_ row: PostgresRow) throws -> Record {
        var cells = row.makeIterator()
        func next() throws -> PostgresCell {
            guard let cell = cells.next() else { throw CloudError(.internalError, "A record row is missing columns") }
            return cell
        }
        _ = try next()
        let name = try Self.text(next())
        let type = try Self.text(next(), &recordType)
        let zoneName = try Self.text(next(), &zone)
        let createdAt = try next().decode(Double.self)
        let modifiedAt = try next().decode(Double.self)
        let creator = try Self.text(next(), &createdBy)
        let modifier = try Self.text(next(), &modifiedBy)
        let changeTag = try Self.text(next())
        let fieldsCell = try next()
        let fields: [String: FieldValue]
        if fieldsCell.dataType == .text, let bytes = fieldsCell.bytes {
            // Parsed where postgres-nio received it, without a String copy first.
            fields = Self.withUTF8(bytes) { PostgresStore.decodeFields($0, keys: keys, cache: assetCache) }
        } else {
            fields = PostgresStore.decodeFields(try fieldsCell.decode(String.self), keys: keys, cache: assetCache)
        }
        return Record.stored(type: type, id: Record.ID(recordName: name, zoneID: zoneID ?? RecordZone.ID(zoneName: zoneName)),
                             fields: fields, createdAt: createdAt, modifiedAt: modifiedAt,
                             createdBy: creator, modifiedBy: modifier, changeTag: changeTag)
    }

    /// A text cell's string, read from its bytes (postgres-nio's generic decode cost a few percent
    /// of a page's time in the node); through `repeated` when the column repeats between rows.
    private static func text(_ cell: PostgresCell, _ repeated: inout RepeatedText) throws -> String {
        guard cell.dataType == .text, let bytes = cell.bytes else { return try cell.decode(String.self) }
        return withUTF8(bytes) { repeated.read($0) }
    }

    private static func text(_ cell: PostgresCell) throws -> String {
        guard cell.dataType == .text, let bytes = cell.bytes else { return try cell.decode(String.self) }
        return withUTF8(bytes) { String(decoding: $0, as: UTF8.self) }
    }

    private static func withUTF8<T>(_ bytes: ByteBuffer, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.withUnsafeReadableBytes { raw in raw.withMemoryRebound(to: UInt8.self, body) }
    }
}
