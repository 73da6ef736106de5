/// One change another user made, as a notification reports it.
package struct RemoteChange: Hashable, Sendable {
    package enum Kind: Hashable, Sendable { case created, updated, deleted }
    package var recordID: String
    package var kind: Kind
    /// For an update, the record's change tag after it, when known: a list already showing that
    /// version (a refresh read it first) does not count it again.
    package var changeTag: String?

    package init(recordID: String, kind: Kind, changeTag: String? = nil) {
        self.recordID = recordID
        self.kind = kind
        self.changeTag = changeTag
    }
}
