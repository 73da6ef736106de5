import Foundation

extension Query {
    /// Where the next page of a query starts, like `CKQueryOperation.Cursor`.
    ///
    /// Opaque and `Codable`: it holds the validated query and the last row's sort key and
    /// row ID (keyset pagination), so every matching record comes exactly once, in order,
    /// even when other writers insert between pages. Serialize it with `JSONEncoder`.
    public struct Cursor: Sendable, Codable, Equatable {
        let recordType: String
        let predicate: PredicateNode
        let sort: [QuerySortKey]
        let zoneID: RecordZone.ID
        let anchor: QueryAnchor
        /// A remote container's page position: the server's `continuationMarker`, opaque here.
        let continuationMarker: String?

        init(recordType: String, predicate: PredicateNode, sort: [QuerySortKey], zoneID: RecordZone.ID,
             anchor: QueryAnchor, continuationMarker: String? = nil) {
            self.recordType = recordType
            self.predicate = predicate
            self.sort = sort
            self.zoneID = zoneID
            self.anchor = anchor
            self.continuationMarker = continuationMarker
        }

        /// The zone the query runs in.
        public var zone: RecordZone.ID { zoneID }
    }
}

/// One sort key of a query: a system or user field, or a distance from a location.
package struct QuerySortKey: Sendable, Codable, Equatable {
    package var key: String
    package var ascending: Bool
    package var location: Location?
}

/// A SQL value as read from a sort column, kept in a cursor.
package enum SQLScalar: Sendable, Codable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// The last row of a page: its sort values and its row ID, which breaks ties.
package struct QueryAnchor: Sendable, Codable, Equatable {
    package var values: [SQLScalar]
    package var rowID: Int64

    package init(values: [SQLScalar], rowID: Int64) {
        self.values = values
        self.rowID = rowID
    }
}

/// A validated query, ready for the store.
package struct QueryRequest: Sendable {
    package var recordType: String
    package var predicate: PredicateNode
    package var sort: [QuerySortKey]
    package var zoneID: RecordZone.ID
    package var anchor: QueryAnchor?
    /// Rows per page; always positive here.
    package var limit: Int
    package var desiredKeys: [String]?
    /// On a remote container, the server's position after the previous page.
    package var continuationMarker: String?

    package init(query: Query, zoneID: RecordZone.ID, limit: Int, desiredKeys: [String]?) throws {
        recordType = query.recordType
        predicate = try query.predicate.validatedNode()
        sort = (query.sortDescriptors ?? []).map { descriptor in
            QuerySortKey(key: descriptor.key, ascending: descriptor.ascending,
                         location: (descriptor as? LocationSortDescriptor)?.relativeLocation)
        }
        self.zoneID = zoneID
        anchor = nil
        self.limit = limit
        self.desiredKeys = desiredKeys
    }

    package init(cursor: Query.Cursor, limit: Int, desiredKeys: [String]?) {
        recordType = cursor.recordType
        predicate = cursor.predicate
        sort = cursor.sort
        zoneID = cursor.zoneID
        anchor = cursor.anchor
        continuationMarker = cursor.continuationMarker
        self.limit = limit
        self.desiredKeys = desiredKeys
    }

    package init(recordType: String, predicate: PredicateNode, sort: [QuerySortKey], zoneID: RecordZone.ID = .default,
         limit: Int, desiredKeys: [String]? = nil) {
        self.recordType = recordType
        self.predicate = predicate
        self.sort = sort
        self.zoneID = zoneID
        anchor = nil
        self.limit = limit
        self.desiredKeys = desiredKeys
    }

    package func cursor(after anchor: QueryAnchor) -> Query.Cursor {
        Query.Cursor(recordType: recordType, predicate: predicate, sort: sort, zoneID: zoneID, anchor: anchor)
    }

    /// The cursor of a remote page: the query, and the server's marker where it goes on.
    package func cursor(continuationMarker: String) -> Query.Cursor {
        Query.Cursor(recordType: recordType, predicate: predicate, sort: sort, zoneID: zoneID,
                     anchor: QueryAnchor(values: [], rowID: 0), continuationMarker: continuationMarker)
    }
}
