import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import LocalCloud

/// A query page's statement is compiled once per connection and kept (GRDB's statement cache).
/// SQLite compiles a kept statement again on its next step when a value bound anew could change
/// its plan. The record type compared with a bare `?` was such a value (the partial index
/// `records_shares` holds `record_type = 'cloudkit_share'`), so every page was compiled again:
/// in a profile of a node serving uncached pages, about a seventh of its CPU.
@Suite struct PageStatementReuseTests {
    let cloud = TestCloud()

    /// How many times SQLite compiled `statement` again since it was prepared.
    static func recompilations(_ statement: Statement) -> Int32 {
        sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
    }

    @Test(arguments: [nil, "name"])
    func aPageStatementBoundAgainIsNotCompiledAgain(sortKey: String?) async throws {
        let container = cloud.container(user: "alice")
        let database = container.publicCloudDatabase
        let records = (0..<5).map { i in
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
            record["name"] = "Restaurant \(i)"
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        if sortKey != nil {
            try await container.updateSchema { schema in
                try schema.setIndex(.sortable, true, type: "Restaurant", field: "name")
            }
        }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [sortKey.map { SortDescriptor(key: $0, ascending: true) }
            ?? SortDescriptor(key: "creationDate", ascending: false)]
        let store = try await container.core.sqliteStore()
        let request = try QueryRequest(query: query, zoneID: .default, limit: 2, desiredKeys: nil)
        let plan = try await store.plannedQuery(request, context: database.context).plan
        let (rows, recompiled) = try await store.read { db in
            let statement = try db.cachedStatement(sql: plan.sql)
            var rows: [Int] = []
            // Bound again each time, with the same values, as every page binds its statement.
            for _ in 0..<3 {
                rows.append(try Row.fetchAll(statement, arguments: plan.arguments).count)
            }
            return (rows, Self.recompilations(statement))
        }
        #expect(rows == [3, 3, 3])  // the page and the row after it
        #expect(recompiled == 0)
    }
}
