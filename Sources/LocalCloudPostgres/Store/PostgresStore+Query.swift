import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore {
    package func queryRecords(_ request: QueryRequest, context: StoreContext) async throws -> QueryPage {
        try await checkQuery(request, context: context)
        let plan = try PostgresQueryPlan.compile(request, context: context, schema: schema, collationIsC: collationIsC)
        let page: QueryPage = try await call { pool in
            try await pool.withConnection { connection in
                if request.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                    try await self.requireZone(request.zoneID, context: context, connection: connection, logger: pool.logger)
                }
                let rows = plan.prepares
                    ? try await connection.preparedRows(plan.statement, logger: pool.logger)
                    : try await connection.rows(plan.statement, logger: pool.logger)
                // A shared-database page names its zone with the owner, as the sharing layer shows it.
                return try self.page(rows, plan: plan, request: request, zoneID: context.sharedOwner != nil ? request.zoneID : nil)
            }
        }
        try await materializeAssets(in: page.records)
        return page
    }

    /// The page's records and, when a row follows them, the cursor after the last one.
    private func page(_ rows: [PostgresRow], plan: PostgresQueryPlan, request: QueryRequest, zoneID: RecordZone.ID?) throws -> QueryPage {
        var records: [Record] = []
        records.reserveCapacity(min(rows.count, request.limit))
        var reader = PostgresRowReader(keys: plan.fieldKeys, zoneID: zoneID, assetCache: assetCache)
        for row in rows.prefix(request.limit) {
            records.append(try reader.record(row))
        }
        guard rows.count > request.limit, let last = rows.prefix(request.limit).last else {
            return QueryPage(records: records, cursor: nil)
        }
        let cells = Array(last)
        let rowID = try cells[0].decode(Int64.self)
        var values: [SQLScalar] = []
        for (i, kind) in plan.sortKinds.enumerated() {
            let cell = cells[Self.recordColumnCount + i]
            switch kind {
            case .real: values.append(try cell.decode(Double?.self).map(SQLScalar.real) ?? .null)
            case .text, .json: values.append(try cell.decode(String?.self).map(SQLScalar.text) ?? .null)
            }
        }
        return QueryPage(records: records, cursor: request.cursor(after: QueryAnchor(values: values, rowID: rowID)))
    }

    /// The SQL a query runs, for `EXPLAIN` in tests and `localcloud` diagnostics.
    package func explain(_ request: QueryRequest, context: StoreContext) async throws -> String {
        let plan = try PostgresQueryPlan.compile(request, context: context, schema: schema, collationIsC: collationIsC)
        var statement = plan.statement
        statement.sql = "EXPLAIN " + statement.sql
        let explained = statement
        return try await call { pool in
            try await pool.withConnection { connection in
                try await connection.rows(explained, logger: pool.logger).map { try $0.decode(String.self) }.joined(separator: "\n")
            }
        }
    }

    /// The names of the schema's indexes on `records`, for tests and diagnostics.
    package func indexNames() async throws -> [String] {
        try await call { pool in
            try await pool.rows("SELECT indexname FROM pg_indexes WHERE schemaname = '\(self.schema)' AND tablename = 'records' ORDER BY 1")
                .map { try $0.decode(String.self) }
        }
    }
}
