/// Who a person is, as far as sharing needs to know, like `CKUserIdentity`.
public struct UserIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How the person was looked up, like `CKUserIdentity.LookupInfo`.
    public struct LookupInfo: Sendable, Hashable, Codable {
        public var emailAddress: String?
        public var userRecordID: Record.ID?

        public init(emailAddress: String) {
            self.emailAddress = emailAddress
        }

        public init(userRecordID: Record.ID) {
            self.userRecordID = userRecordID
        }
    }

    /// The person's user record ID (`_<name>`), `nil` when unknown.
    public var userRecordID: Record.ID?
    public var lookupInfo: LookupInfo?
    /// Whether the person has an account on this LocalCloud (always true for identities found by lookup).
    public var hasiCloudAccount: Bool

    package init(userRecordID: Record.ID?, lookupInfo: LookupInfo? = nil, hasiCloudAccount: Bool = true) {
        self.userRecordID = userRecordID
        self.lookupInfo = lookupInfo
        self.hasiCloudAccount = hasiCloudAccount
    }

    /// The account name: `_alice` → `alice`.
    package var userName: String? {
        guard let name = userRecordID?.recordName, name.hasPrefix("_") else { return nil }
        return String(name.dropFirst())
    }

    public var description: String { "<UserIdentity \(userRecordID?.recordName ?? lookupInfo?.emailAddress ?? "?")>" }
}
