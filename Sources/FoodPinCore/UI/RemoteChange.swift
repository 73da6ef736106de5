/// One change another user made, as a notification reports it.
public struct RemoteChange: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case created, updated, deleted }
    public var recordID: String
    public var kind: Kind

    public init(recordID: String, kind: Kind) {
        self.recordID = recordID
        self.kind = kind
    }
}
