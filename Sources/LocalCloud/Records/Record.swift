import Foundation

// Placeholder until the storage issue lands the full class; keeps the contract types compiling.
public final class Record: @unchecked Sendable {
    public let recordID: ID
    public let recordType: String
    public init(recordType: String, recordID: ID = ID()) {
        self.recordType = recordType
        self.recordID = recordID
    }
}
