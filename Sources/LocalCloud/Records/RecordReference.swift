extension Record {
    /// A field value that points at another record.
    public struct Reference: Hashable, Sendable, Codable {
        public enum Action: Int, Hashable, Sendable, Codable {
            /// No effect when the target is deleted.
            case none = 0
            /// Deleting the target deletes the record holding this reference.
            case deleteSelf = 1
        }

        public var recordID: Record.ID
        public var action: Action

        public init(recordID: Record.ID, action: Action) {
            self.recordID = recordID
            self.action = action
        }

        public init(record: Record, action: Action) {
            self.init(recordID: record.recordID, action: action)
        }
    }
}
