import LocalCloud

/// The PostgreSQL store behind the one seam: records, zones, subscriptions, the change log, the
/// schema, assets and the notification feed, each in its own file.
extension PostgresStore: CloudStore, RecordStore, ChangeLogStore {
    /// Stops this process's pool; other stores on the same database share it, so it stays open.
    package func close() {}
}
