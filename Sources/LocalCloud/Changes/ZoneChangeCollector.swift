/// A zone's change-log rows collapsed to one change per record, in first-seen order, up to a
/// page's limit: how every store turns its log into a page of record changes.
///
/// ```swift
/// var collector = ZoneChangeCollector(limit: 200, after: token.sequence)
/// scan: for row in rows {
///     guard collector.add(sequence: row.seq, name: row.name, type: row.type, kind: row.kind) else { break scan }
/// }
/// ```
package struct ZoneChangeCollector {
    /// A record's last change in the page.
    package struct Change: Sendable {
        package var name: String
        package var type: String
        package var deleted: Bool
        /// For a deletion, the record name of the record's parent when it was deleted ("" for none);
        /// `nil` when the log did not keep it (rows written before it did).
        package var parent: String?

        package init(name: String, type: String, deleted: Bool, parent: String? = nil) {
            self.name = name
            self.type = type
            self.deleted = deleted
            self.parent = parent
        }
    }

    package let limit: Int
    /// The last sequence taken into the page: the next page's token.
    package private(set) var consumed: Int64
    /// Whether a row was left for the next page because this one is full.
    package private(set) var moreComing = false
    private var order: [String] = []
    private var byName: [String: Change] = [:]

    package init(limit: Int, after sequence: Int64) {
        self.limit = max(1, limit)
        consumed = sequence
    }

    /// Takes one log row; `false` when the page is full and the row is left for the next page.
    package mutating func add(sequence: Int64, name: String, type: String, kind: String, parent: String? = nil) -> Bool {
        // A zone deletion is the database changes' business; a zone page skips it.
        if kind == "zoneDeleted" || name.isEmpty {
            consumed = sequence
            return true
        }
        if byName[name] == nil {
            guard order.count < limit else {
                moreComing = true
                return false
            }
            order.append(name)
        }
        let deleted = kind == "deleted"
        byName[name] = Change(name: name, type: type, deleted: deleted, parent: deleted ? parent : nil)
        consumed = sequence
        return true
    }

    /// The page's changes, one per record, in the order each record first changed.
    package var changes: [Change] { order.compactMap { byName[$0] } }
}
