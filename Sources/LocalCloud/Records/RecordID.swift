import Foundation

extension Record {
    /// Identifies a record: its name, unique within its zone.
    public struct ID: Hashable, Sendable, Codable, CustomStringConvertible {
        public var recordName: String
        public var zoneID: RecordZone.ID

        /// A record ID; the name is a new UUID string when none is given.
        public init(recordName: String = UUID().uuidString, zoneID: RecordZone.ID = .default) {
            self.recordName = recordName
            self.zoneID = zoneID
        }

        public var description: String { recordName }
    }
}
