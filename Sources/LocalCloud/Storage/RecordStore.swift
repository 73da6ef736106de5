/// The storage backend behind a container: SQLite today, something else later.
///
/// Calls are `async`: a store suspends while its database works, never blocking a thread of
/// Swift's cooperative pool. Each call is one transaction. Per-item failures come back in the results; a thrown error fails the whole call.
package protocol RecordStore: AnyObject, Sendable {
    func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) async throws -> [Record.ID: Result<Record, CloudError>]

    /// Applies saves and deletes in order, each with its own conflict rule, in one transaction.
    /// With `atomically`, one failure fails them all (the others with `batchRequestFailed`).
    func modify(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult]

    func queryRecords(_ request: QueryRequest, context: StoreContext) async throws -> QueryPage

    func saveZones(_ zones: [RecordZone], context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>]
    func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>]
    func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) async throws -> [RecordZone.ID: Result<Void, CloudError>]
}

/// Per-item results of a modify call, in request order.
package struct ModifyOutcome: Sendable {
    package var saved: [(Record.ID, Result<Record, CloudError>)] = []
    package var deleted: [(Record.ID, Result<Void, CloudError>)] = []
}

extension RecordStore {
    /// `ModifyRecordsOperation`'s shape: one policy for every save, deletes unconditional.
    func modifyRecords(
        saving: [Record], deleting: [Record.ID],
        policy: ModifyRecordsOperation.RecordSavePolicy, atomically: Bool, context: StoreContext
    ) async throws -> ModifyOutcome {
        let items = saving.map { ModifyItem.save($0, SaveRule(policy: policy)) } + deleting.map { ModifyItem.delete($0, ifChangeTag: nil) }
        var outcome = ModifyOutcome()
        for result in try await modify(items, atomically: atomically, context: context) {
            switch result.outcome {
            case .saved(let record): outcome.saved.append((result.recordID, .success(record)))
            case .deleted: outcome.deleted.append((result.recordID, .success(())))
            case .failed(let error, isDelete: false): outcome.saved.append((result.recordID, .failure(error)))
            case .failed(let error, isDelete: true): outcome.deleted.append((result.recordID, .failure(error)))
            }
        }
        return outcome
    }
}

/// One page of query results and where the next page starts.
package struct QueryPage: Sendable {
    package var records: [Record]
    package var cursor: Query.Cursor?

    package init(records: [Record], cursor: Query.Cursor?) {
        self.records = records
        self.cursor = cursor
    }
}
