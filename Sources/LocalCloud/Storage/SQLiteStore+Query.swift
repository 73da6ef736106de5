import Foundation
import GRDB

extension SQLiteStore {
    func queryRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage {
        let locationIndexes = request.predicate.hasDistance ? try read(SchemaIndexes.locationIndexes) : []
        let plan = try SQLQueryPlan.compile(request, context: context, locationIndexes: locationIndexes)
        return try read { db in
            try accessPolicy.check(.query(request), context: context, db: db)
            if request.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                try requireZone(request.zoneID, context: context, db: db)
            }
            // Decode rows in place from the statement: no copied rows.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: plan.sql), arguments: plan.arguments)
            let firstSortColumn = 9 + plan.layout.columnCount
            var records: [Record] = []
            records.reserveCapacity(request.limit)
            var anchor: QueryAnchor?
            var hasMore = false
            while let row = try rows.next() {
                if records.count == request.limit {
                    hasMore = true
                    break
                }
                records.append(makeRecord(row, layout: plan.layout))
                if records.count == request.limit {
                    let values = (0..<plan.sortColumnCount).map { SQLScalar(row[firstSortColumn + $0] as DatabaseValue) }
                    anchor = QueryAnchor(values: values, rowID: row[0])
                }
            }
            let cursor = hasMore ? anchor.map(request.cursor(after:)) : nil
            return QueryPage(records: records, cursor: cursor)
        }
    }
}
