import Foundation
import GRDB

extension SQLiteStore {
    func queryRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage {
        let locationIndexes = request.predicate.hasDistance ? try read(SchemaIndexes.locationIndexes) : []
        let plan = try SQLQueryPlan.compile(request, context: context, locationIndexes: locationIndexes)
        return try read { db in
            try accessPolicy.check(.query(recordType: request.recordType, predicate: request.predicate, sort: request.sort),
                                   context: context, db: db)
            if request.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                try requireZone(request.zoneID, context: context, db: db)
            }
            let rows = try Row.fetchAll(db.cachedStatement(sql: plan.sql), arguments: plan.arguments)
            let pageRows = rows.prefix(request.limit)
            let records = pageRows.map(makeRecord)
            var cursor: Query.Cursor?
            if rows.count > request.limit, let last = pageRows.last {
                let firstSortColumn = last.count - plan.sortColumnCount
                let values = (0..<plan.sortColumnCount).map { SQLScalar(last[firstSortColumn + $0] as DatabaseValue) }
                cursor = request.cursor(after: QueryAnchor(values: values, rowID: last[0]))
            }
            return QueryPage(records: records, cursor: cursor)
        }
    }
}
