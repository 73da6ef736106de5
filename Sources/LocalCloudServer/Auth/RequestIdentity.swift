import LocalCloud

/// Who a request acts for, once its tokens or signature have been checked.
struct RequestIdentity: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A valid API token and no user: the public database is read-only.
        case anonymous
        /// A valid web auth token for this user.
        case user(String)
        /// A request signed with a server-to-server key: the developer, on the public database.
        case developer(keyID: String)
    }

    var kind: Kind

    static let anonymous = RequestIdentity(kind: .anonymous)

    /// The LocalCloud user the request's databases act as; `nil` for no account.
    var userName: String? {
        switch kind {
        case .anonymous: nil
        case .user(let name): name
        case .developer: RequestIdentity.developerUserName
        }
    }

    /// The user name server-to-server requests act as: LocalCloud's developer, with every permission in
    /// the public database (`__developer` as a record's creator).
    static let developerUserName = Schema.developerUserName
}
