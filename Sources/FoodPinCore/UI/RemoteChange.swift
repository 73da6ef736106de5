/// One change another user made, as a notification reports it.
package struct RemoteChange: Hashable, Sendable {
    package enum Kind: Hashable, Sendable { case created, updated, deleted }
    package var recordID: String
    package var kind: Kind

    package init(recordID: String, kind: Kind) {
        self.recordID = recordID
        self.kind = kind
    }
}
