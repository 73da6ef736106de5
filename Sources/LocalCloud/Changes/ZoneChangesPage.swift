import Foundation

/// One page of a zone's changes: records changed or deleted since a token, collapsed per record.
package struct ZoneChangesPage: Sendable {
    package var modified: [(Record.ID, Result<Record, CloudError>)] = []
    package var deleted: [(Record.ID, String)] = []
    /// The parent each deleted record had (record name → parent's record name, "" for none), where
    /// the log kept it: the sharing layer reports a deletion only inside a participant's hierarchy.
    package var deletedParents: [String: String] = [:]
    package var token: ServerChangeToken
    package var moreComing: Bool

    package init(token: ServerChangeToken, moreComing: Bool) {
        self.token = token
        self.moreComing = moreComing
    }
}

extension RecordStore {
    /// The page for a zone's collapsed changes: deletions as logged, the rest fetched now.
    ///
    /// ```swift
    /// let page = try zoneChangesPage(collector.changes, in: zoneID, token: next, moreComing: collector.moreComing,
    ///                                desiredKeys: nil, context: context)
    /// ```
    ///
    /// The store-independent half of ``ChangeLogStore/recordZoneChanges(in:since:desiredKeys:limit:context:)``:
    /// each store reads its log its own way, then both build the page here.
    package func zoneChangesPage(_ changes: [ZoneChangeCollector.Change], in zoneID: RecordZone.ID, token: ServerChangeToken,
                                 moreComing: Bool, desiredKeys: [String]?, context: StoreContext) async throws -> ZoneChangesPage {
        var page = ZoneChangesPage(token: token, moreComing: moreComing)
        let changedIDs = changes.filter { !$0.deleted }.map { Record.ID(recordName: $0.name, zoneID: zoneID) }
        let fetched = changedIDs.isEmpty ? [:] : try await fetchRecords(changedIDs, desiredKeys: desiredKeys, context: context)
        for change in changes {
            let id = Record.ID(recordName: change.name, zoneID: zoneID)
            if change.deleted {
                page.deleted.append((id, change.type))
                if let parent = change.parent { page.deletedParents[change.name] = parent }
            } else if let result = fetched[id] {
                // Deleted after this page's log position: a later page reports the deletion.
                if case .failure(let error) = result, error.code == .unknownItem { continue }
                page.modified.append((id, result))
            }
        }
        return page
    }
}
