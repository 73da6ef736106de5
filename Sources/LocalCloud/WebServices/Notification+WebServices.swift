import Foundation

extension Notification {
    /// The push payload CloudKit sends for this notification: the `ck` dictionary, plus `aps` when
    /// the subscription has notification info.
    ///
    /// ```json
    /// {"ck": {"ce": 2, "cid": "iCloud.com.example.FoodPin", "nid": "42-1-restaurants",
    ///         "qry": {"sid": "restaurants", "rid": "r1", "fo": 1, "zid": "_defaultZone",
    ///                 "zoid": "_defaultOwner", "dbs": 1, "rt": "Restaurant"}}}
    /// ```
    ///
    /// `qry` for query subscriptions (`fo`: 1 created, 2 updated, 3 deleted), `fet` for zone ones,
    /// `met` for database ones; `dbs` is the database scope (1 public, 2 private, 3 shared).
    package var webServicesPayload: JSONValue {
        let zone = recordZoneID ?? .default
        var body: [String: JSONValue] = [
            "sid": .string(subscriptionID),
            "dbs": .int(Int64(databaseScope.rawValue)),
            "zid": .string(zone.zoneName == RecordZone.ID.defaultZoneName ? "_defaultZone" : zone.zoneName),
            "zoid": .string(zone.ownerName == RecordZone.ID.currentUserName ? "_defaultOwner" : zone.ownerName),
        ]
        var ck: [String: JSONValue] = [
            "ce": .int(2), "cid": .string(containerIdentifier), "nid": .string(notificationID),
        ]
        switch notificationType {
        case .query:
            if let recordID { body["rid"] = .string(recordID.recordName) }
            body["fo"] = .int(Int64(queryNotificationReason.rawValue))
            if let recordType { body["rt"] = .string(recordType) }
            ck["qry"] = .object(body)
        case .recordZone:
            ck["fet"] = .object(body)
        case .database:
            ck["met"] = .object(["sid": .string(subscriptionID), "dbs": .int(Int64(databaseScope.rawValue))])
        }
        var payload: [String: JSONValue] = ["ck": .object(ck)]
        if let info = notificationInfo {
            var aps: [String: JSONValue] = [:]
            var alert: [String: JSONValue] = [:]
            if let title = info.title { alert["title"] = .string(title) }
            if let body = info.alertBody { alert["body"] = .string(body) }
            if !alert.isEmpty { aps["alert"] = .object(alert) }
            if info.shouldSendContentAvailable { aps["content-available"] = .int(1) }
            if let category = info.category { aps["category"] = .string(category) }
            if !aps.isEmpty { payload["aps"] = .object(aps) }
        }
        return .object(payload)
    }
}
