/// One page of a database's changes: the zones that changed or went away.
package struct DatabaseChangesPage: Sendable {
    package var changedZones: [RecordZone.ID] = []
    package var deletedZones: [RecordZone.ID] = []
    package var token: ServerChangeToken
    package var moreComing: Bool

    package init(changedZones: [RecordZone.ID] = [], token: ServerChangeToken, moreComing: Bool) {
        self.changedZones = changedZones
        self.token = token
        self.moreComing = moreComing
    }
}

extension DatabaseChangesPage {
    /// A database's change-log rows collapsed to the zones they touched, in first-seen order, up
    /// to a page's limit: how every store turns its log into a page of zone changes.
    ///
    /// ```swift
    /// var collector = DatabaseChangesPage.Collector(limit: 100, after: token.sequence)
    /// for row in rows { guard collector.add(sequence: row.seq, zone: row.zone) else { break } }
    /// let page = collector.page(epoch: epoch, existing: zoneNames)
    /// ```
    package struct Collector {
        package let limit: Int
        /// The last sequence taken into the page: the next page's token.
        package private(set) var consumed: Int64
        /// Whether a row was left for the next page because this one is full.
        package private(set) var moreComing = false
        private var order: [String] = []
        private var seen: Set<String> = []

        package init(limit: Int, after sequence: Int64) {
            self.limit = max(1, limit)
            consumed = sequence
        }

        /// Takes one log row; `false` when the page is full and the row is left for the next page.
        package mutating func add(sequence: Int64, zone: String) -> Bool {
            if !seen.contains(zone) {
                guard order.count < limit else {
                    moreComing = true
                    return false
                }
                order.append(zone)
                seen.insert(zone)
            }
            consumed = sequence
            return true
        }

        /// The page: touched zones that still exist changed, the others deleted.
        package func page(epoch: String, existing: Set<String>) -> DatabaseChangesPage {
            var page = DatabaseChangesPage(token: ServerChangeToken(epoch: epoch, sequence: consumed), moreComing: moreComing)
            for zone in order {
                if existing.contains(zone) {
                    page.changedZones.append(RecordZone.ID(zoneName: zone))
                } else {
                    page.deletedZones.append(RecordZone.ID(zoneName: zone))
                }
            }
            return page
        }
    }
}
