import Foundation

extension RemoteStore {
    /// Search as you type while the server is away: the records the cache holds (from every page
    /// read, and saves waiting in the outbox) that match, sorted as asked, in one page.
    ///
    /// Only a first page of a `CONTAINS_AS_TYPED` search is answered this way; other queries
    /// still need their own cached answer. Without the server's schema every string field is
    /// searched, and only the fields the cached pages carried are there to be found.
    /// - Returns: `nil` for a query this cannot answer.
    func searchCachedRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage? {
        guard request.continuationMarker == nil, request.anchor == nil,
              case .textSearchAsTyped(let text) = request.predicate else { return nil }
        let terms = TypedSearchTerms(text)
        let cached = try responses.cachedPageRecords(recordType: request.recordType, zone: request.zoneID.webServicesJSON,
                                                     scope: context.scope, user: context.user)
        var records = try cached.map { try RemoteWire.serverRecord($0, zoneID: request.zoneID, assetFile: cachedAsset) }
        let pending = (try? pendingChanges()) ?? []
        let deleted = Set(pending.filter(\.isDelete).map(\.recordID.recordName))
        let saved = pending.compactMap { $0.isDelete ? nil : $0.record }.filter { $0.recordType == request.recordType }
        let savedNames = Set(saved.map(\.recordID.recordName))
        records = saved + records.filter { !savedNames.contains($0.recordID.recordName) && !deleted.contains($0.recordID.recordName) }
        let matching = records.filter { terms.matches(Self.searchableText($0)) }
        let sorted = matching.enumerated().sorted { a, b in
            Self.ordered(a.element, b.element, by: request.sort) ?? (a.offset < b.offset)
        }.map(\.element)
        return QueryPage(records: Array(sorted.prefix(request.limit)), cursor: nil)
    }

    /// The record's strings, one a line, as a store's full-text index holds them.
    static func searchableText(_ record: Record) -> String {
        var text: [String] = []
        func collect(_ value: FieldValue) {
            switch value {
            case .string(let s): text.append(s)
            case .list(let items): items.forEach(collect)
            default: break
            }
        }
        let fields = record.snapshot.fields
        for key in fields.keys.sorted() { if let value = fields[key] { collect(value) } }
        return text.joined(separator: "\n")
    }

    /// Whether `a` sorts before `b`; `nil` when the sort keys cannot tell them apart (or are not
    /// a system date, the record name, a string or a number).
    static func ordered(_ a: Record, _ b: Record, by sort: [QuerySortKey]) -> Bool? {
        for key in sort where key.location == nil {
            let order: ComparisonResult?
            switch SQLQueryPlan.systemColumn(forSortKey: key.key) {
            case "r.created_at": order = compare(a.creationDate, b.creationDate)
            case "r.modified_at": order = compare(a.modificationDate, b.modificationDate)
            case "r.record_name": order = compare(a.recordID.recordName, b.recordID.recordName)
            case .some: order = nil
            case .none:
                switch (a.snapshot.fields[key.key], b.snapshot.fields[key.key]) {
                case (.string(let x)?, .string(let y)?): order = compare(x, y)
                case (.int64(let x)?, .int64(let y)?): order = compare(x, y)
                case (.double(let x)?, .double(let y)?): order = compare(x, y)
                case (.date(let x)?, .date(let y)?): order = compare(x, y)
                default: order = nil
                }
            }
            guard let order, order != .orderedSame else { continue }
            return (order == .orderedAscending) == key.ascending
        }
        return nil
    }

    private static func compare<T: Comparable>(_ x: T?, _ y: T?) -> ComparisonResult? {
        guard let x, let y else { return nil }
        return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }
}
