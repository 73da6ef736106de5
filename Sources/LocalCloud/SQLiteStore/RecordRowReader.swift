import Foundation
import GRDB

/// Turns the rows of one statement, selected with ``SQLQueryPlan/recordColumns`` then the
/// fields JSON, into records.
///
/// A page reads ten columns for each of up to 400 rows, so this avoids what costs per row:
/// the type, zone and user names repeat from row to row and are reused when their bytes match
/// the previous row's, and the fields are decoded for the given keys only.
struct RecordRowReader {
    private let assetsDirectory: URL
    /// The fields to decode (``SQLQueryPlan/fieldKeys(_:)``), `nil` for all.
    private let keys: [String]?
    private var recordType = RepeatedText()
    private var zone = RepeatedText()
    private var createdBy = RepeatedText()
    private var modifiedBy = RepeatedText()
    /// The zone ID every record gets instead of its stored zone's, when set: a shared-database
    /// page names the zone with its owner, and writing it here spares a copy of each record.
    private let zoneID: RecordZone.ID?

    init(assetsDirectory: URL, keys: [String]?, zoneID: RecordZone.ID? = nil) {
        self.assetsDirectory = assetsDirectory
        self.keys = keys
        self.zoneID = zoneID
    }

    /// The record in the statement's current row.
    mutating func record(at statement: Statement) -> Record {
        let row = StatementColumns(statement)
        let assets = assetsDirectory
        let fields = row.withText(9) { text in
            FieldsJSON.decode(text, keys: keys) { SQLiteStore.assetURL(forDigest: $0, in: assets) }
        } ?? [:]
        let zoneID = self.zoneID ?? RecordZone.ID(zoneName: zone.read(row, column: 3))
        return Record.stored(type: recordType.read(row, column: 2), id: Record.ID(recordName: row.string(1) ?? "", zoneID: zoneID),
                             fields: fields, createdAt: row.double(4), modifiedAt: row.double(5),
                             createdBy: createdBy.read(row, column: 6), modifiedBy: modifiedBy.read(row, column: 7),
                             changeTag: row.string(8))
    }
}

private extension RepeatedText {
    mutating func read(_ row: StatementColumns, column: Int32) -> String {
        row.withText(column) { read($0) } ?? ""
    }
}
