/// The storage backend behind a container: SQLite today, something else later.
///
/// Calls are synchronous and run on the database's operation queue; each call is one
/// transaction. Per-item failures come back in the results; a thrown error fails the whole call.
protocol RecordStore: AnyObject, Sendable {
    func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) throws -> [Record.ID: Result<Record, CloudError>]

    func modifyRecords(
        saving: [Record], deleting: [Record.ID],
        policy: ModifyRecordsOperation.RecordSavePolicy, atomically: Bool, context: StoreContext
    ) throws -> ModifyOutcome

    func queryRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage

    func saveZones(_ zones: [RecordZone], context: StoreContext) throws -> [RecordZone.ID: Result<RecordZone, CloudError>]
    func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) throws -> [RecordZone.ID: Result<RecordZone, CloudError>]
    func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) throws -> [RecordZone.ID: Result<Void, CloudError>]
}

/// Per-item results of a modify call, in request order.
struct ModifyOutcome: Sendable {
    var saved: [(Record.ID, Result<Record, CloudError>)] = []
    var deleted: [(Record.ID, Result<Void, CloudError>)] = []
}

/// One page of query results and where the next page starts.
struct QueryPage: Sendable {
    var records: [Record]
    var cursor: Query.Cursor?
}
