extension RecordZone {
    /// Identifies a zone: its name and the user who owns it.
    public struct ID: Hashable, Sendable, Codable, CustomStringConvertible {
        public var zoneName: String
        public var ownerName: String

        public init(zoneName: String, ownerName: String = RecordZone.ID.currentUserName) {
            self.zoneName = zoneName
            self.ownerName = ownerName
        }

        public static let defaultZoneName = "_defaultZone"
        /// CloudKit's placeholder for "the current user", resolved by the database.
        public static let currentUserName = "__defaultOwner__"
        /// `_defaultZone`, present in every database.
        public static let `default` = RecordZone.ID(zoneName: defaultZoneName)

        public var description: String { "\(zoneName):\(ownerName)" }
    }
}
