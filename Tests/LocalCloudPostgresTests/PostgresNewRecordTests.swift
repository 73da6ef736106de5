import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresNIO
import PostgresTestSupport
import Testing

/// New records take one statement for a whole batch (``PostgresStore/insertNewRecords(_:)``):
/// their rows, their change-log rows and the NOTIFY commit as that one statement commits, and a
/// create that cannot go that way still gets the answer the general path gives.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresNewRecordTests {
    /// The record rows and change-log rows of each create: the transaction that wrote them and the
    /// command in it (`cmin`; 0 for the first statement).
    private func writes(_ fixture: PostgresFixture) async throws -> [String: (record: String, log: String)] {
        let store = try await fixture.store()
        let sql = """
            SELECT r.record_name, r.xmin::text || '/' || r.cmin::text, l.xmin::text || '/' || l.cmin::text
            FROM \(store.schema).records r JOIN \(store.schema).change_log l
            ON l.record_name = r.record_name AND l.zone = r.zone AND l.kind = 'created'
            """
        let rows = try await store.pool.withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: store.pool.logger).collect()
        }
        var writes: [String: (record: String, log: String)] = [:]
        for row in rows {
            let (name, record, log) = try row.decode((String, String, String).self)
            writes[name] = (record, log)
        }
        return writes
    }

    private func restaurant(_ name: String, title: String) -> Record {
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
        record["name"] = title
        record["type"] = "Cafe"
        return record
    }

    @Test func concurrentCreatesCommitWithTheirLogRowsAsOneStatement() async throws {
        let fixture = try await PostgresFixture()
        let db = fixture.container(user: "alice").publicCloudDatabase
        // The first save evolves the development schema: the general path, in a transaction.
        _ = try await db.save(restaurant("first", title: "Café Deadend"))
        let names = (1...24).map { "r\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask { _ = try await db.save(self.restaurant(name, title: "Noodle \(name)")) }
            }
            try await group.waitForAll()
        }
        let writes = try await writes(fixture)
        #expect(writes.count == 25)
        // The transaction's second command wrote the evolving save's log row.
        #expect(writes["first"].map { $0.record != $0.log } == true)
        for name in names {
            let write = try #require(writes[name])
            #expect(write.record == write.log, "\(name): its row and log row in one statement")
            #expect(write.record.hasSuffix("/0"))
        }
        // What was written reads back whole, and text search finds it.
        let fetched = try await db.record(for: Record.ID(recordName: "r7"))
        #expect(fetched["name"] as? String == "Noodle r7")
        #expect(fetched.creatorUserRecordID?.recordName == "_alice")
        let found = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "self CONTAINS 'noodle'")),
                                         resultsLimit: 50)
        #expect(found.matchResults.count == 24)
    }

    @Test func aDuplicateNameAndARowPostgreSQLRefusesFailAloneAndTheOthersSave() async throws {
        let fixture = try await PostgresFixture()
        let db = fixture.container(user: "alice").publicCloudDatabase
        _ = try await db.save(restaurant("first", title: "Café Deadend"))
        // Sent together, so they may share a batch: two creates of one name, one text PostgreSQL
        // cannot store (a NUL character), and good ones.
        let records = [restaurant("dup", title: "One"), restaurant("dup", title: "Two"), restaurant("nul", title: "Bad\u{0}text")]
            + (1...6).map { restaurant("ok\($0)", title: "Fine \($0)") }
        let outcomes = await withTaskGroup(of: (String, Result<Record, CloudError>).self) { group in
            for record in records {
                group.addTask {
                    do {
                        return (record.recordID.recordName, .success(try await db.save(record)))
                    } catch {
                        return (record.recordID.recordName, .failure(error as? CloudError ?? CloudError(.internalError, "\(error)")))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let dup = outcomes.filter { $0.0 == "dup" }.map(\.1)
        #expect(dup.filter { if case .success = $0 { true } else { false } }.count == 1)
        #expect(dup.contains { if case .failure(let error) = $0 { error.code == .serverRecordChanged } else { false } })
        let nul = try #require(outcomes.first { $0.0 == "nul" }?.1)
        if case .success = nul { Issue.record("a NUL character was stored") }
        for (name, outcome) in outcomes where name.hasPrefix("ok") {
            if case .failure(let error) = outcome { Issue.record("\(name) failed: \(error)") }
        }
        let writes = try await writes(fixture)
        #expect(Set(writes.keys) == Set(["first", "dup"] + (1...6).map { "ok\($0)" }))
    }
}
