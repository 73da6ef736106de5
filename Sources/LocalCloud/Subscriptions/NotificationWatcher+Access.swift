import Foundation

// A notification is delivered only when its user may read the record now: the security roles (and
// the user's roles) as they stand when the change is read, not when the subscription was made.
extension NotificationWatcher {
    /// The notifications of `candidates` that `user` may read at this moment, in order.
    ///
    /// The private database is the user's own (the reader matched only their changes). In the public
    /// database the record type's READ grant decides, with the roles the user holds now; a type that
    /// lets only `_creator` read needs the record itself, so its creator can be compared: a record that
    /// is gone (deleted, or deleted since) can no longer prove it was the user's, and is not delivered.
    /// `schema` is the reader's copy when it has one (kept by its stamp, so a role change counts from
    /// the next batch on, and an unchanged schema costs nothing); without one it is loaded here.
    /// - Throws: when the schema or a record cannot be read (the watcher retries the batch).
    func readableNotifications(_ candidates: [Notification], user: String, schema known: Schema?) async throws -> [Notification] {
        guard candidates.contains(where: { $0.databaseScope == .public }) else { return candidates }
        let database = Database(scope: .public, core: core)
        let schema = if let known { known } else { try await database.perform { db in try await db.core.store().loadSchema() } }
        var readable: [Notification] = []
        for notification in candidates {
            guard notification.databaseScope == .public, let recordType = notification.recordType else {
                readable.append(notification)
                continue
            }
            do {
                try schema.checkPermission(.read, recordType: recordType, user: user, creator: nil)
                readable.append(notification)
                continue
            } catch let error as CloudError where error.code == .permissionFailure || error.code == .notAuthenticated {
                // Maybe readable as its creator: only the record can say.
            }
            guard schema.recordTypes[recordType]?.grants[SecurityRole.creator]?.contains(.read) == true,
                  notification.queryNotificationReason != .recordDeleted, let recordID = notification.recordID
            else { continue }
            do {
                _ = try await database.record(for: recordID)
                readable.append(notification)
            } catch let error as CloudError where [.permissionFailure, .notAuthenticated, .unknownItem].contains(error.code) {
                continue
            }
        }
        return readable
    }
}
