extension RecordZone {
    /// The answer to a zones fetch, given the zone names that exist (the default zone among them):
    /// each asked-for zone or `zoneNotFound`, or every zone when `ids` is `nil`.
    ///
    /// ```swift
    /// let results = RecordZone.lookup(ids, existing: ["_defaultZone", "Trips"], scope: .private)
    /// ```
    package static func lookup(_ ids: [RecordZone.ID]?, existing: Set<String>,
                               scope: Database.Scope) -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
        if let ids {
            for id in ids {
                results[id] = existing.contains(id.zoneName)
                    ? .success(RecordZone(zoneID: id))
                    : .failure(CloudError(.zoneNotFound, "Zone '\(id.zoneName)' does not exist in the \(scope) database"))
            }
        } else {
            for name in existing { results[RecordZone.ID(zoneName: name)] = .success(RecordZone(zoneName: name)) }
        }
        return results
    }
}
