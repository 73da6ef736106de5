extension Share {
    /// What an invitee learns from a share URL before accepting, like `CKShare.Metadata`.
    public struct Metadata: Sendable, CustomStringConvertible {
        public let containerIdentifier: String
        public let share: Share
        /// The root of a hierarchy share; `nil` for a zone-wide share.
        public let hierarchicalRootRecordID: Record.ID?
        /// The root record, when fetched with `shouldFetchRootRecord`.
        public let rootRecord: Record?
        public let participantRole: ParticipantRole
        public let participantStatus: ParticipantAcceptanceStatus
        public let participantPermission: ParticipantPermission
        public let ownerIdentity: UserIdentity

        package init(containerIdentifier: String, share: Share, hierarchicalRootRecordID: Record.ID?, rootRecord: Record?,
                     participantRole: ParticipantRole, participantStatus: ParticipantAcceptanceStatus,
                     participantPermission: ParticipantPermission, ownerIdentity: UserIdentity) {
            self.containerIdentifier = containerIdentifier
            self.share = share
            self.hierarchicalRootRecordID = hierarchicalRootRecordID
            self.rootRecord = rootRecord
            self.participantRole = participantRole
            self.participantStatus = participantStatus
            self.participantPermission = participantPermission
            self.ownerIdentity = ownerIdentity
        }

        public var description: String {
            "<Share.Metadata \(share.recordID.recordName) owner=\(ownerIdentity.userRecordID?.recordName ?? "?") \(participantRole) \(participantPermission) \(participantStatus)>"
        }
    }
}
