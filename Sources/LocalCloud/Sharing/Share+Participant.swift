extension Share {
    /// A participant's role, with `CKShare.ParticipantRole`'s raw values.
    public enum ParticipantRole: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case unknown = 0
        case owner = 1
        case privateUser = 3
        case publicUser = 4

        public var description: String {
            switch self {
            case .unknown: "unknown"
            case .owner: "owner"
            case .privateUser: "privateUser"
            case .publicUser: "publicUser"
            }
        }
    }

    /// What a participant (or anyone with a public share's URL) may do, with `CKShare.ParticipantPermission`'s raw values.
    public enum ParticipantPermission: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case unknown = 0
        case none = 1
        case readOnly = 2
        case readWrite = 3

        public var description: String {
            switch self {
            case .unknown: "unknown"
            case .none: "none"
            case .readOnly: "readOnly"
            case .readWrite: "readWrite"
            }
        }
    }

    /// Where a participant is in joining, with `CKShare.ParticipantAcceptanceStatus`'s raw values.
    public enum ParticipantAcceptanceStatus: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case unknown = 0
        case pending = 1
        case accepted = 2
        case removed = 3

        public var description: String {
            switch self {
            case .unknown: "unknown"
            case .pending: "pending"
            case .accepted: "accepted"
            case .removed: "removed"
            }
        }
    }

    /// One person in a share, like `CKShare.Participant`.
    public struct Participant: Sendable, Hashable, Codable, CustomStringConvertible {
        public var userIdentity: UserIdentity
        public internal(set) var role: ParticipantRole
        public var permission: ParticipantPermission
        public internal(set) var acceptanceStatus: ParticipantAcceptanceStatus

        package init(userIdentity: UserIdentity, role: ParticipantRole, permission: ParticipantPermission,
                     acceptanceStatus: ParticipantAcceptanceStatus) {
            self.userIdentity = userIdentity
            self.role = role
            self.permission = permission
            self.acceptanceStatus = acceptanceStatus
        }

        /// The same person: the same user record, or (before it is known) the same email address.
        func isSamePerson(as other: Participant) -> Bool {
            if let mine = userIdentity.userRecordID, let theirs = other.userIdentity.userRecordID { return mine == theirs }
            if let mine = userIdentity.lookupInfo?.emailAddress, let theirs = other.userIdentity.lookupInfo?.emailAddress {
                return mine.lowercased() == theirs.lowercased()
            }
            return false
        }

        public var description: String {
            "<Participant \(userIdentity.userRecordID?.recordName ?? "?") \(role) \(permission) \(acceptanceStatus)>"
        }
    }
}
