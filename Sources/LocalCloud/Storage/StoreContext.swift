/// Who is asking and which database: the part of every store call that decides visibility.
package struct StoreContext: Sendable, Hashable {
    package var scope: Database.Scope
    /// The signed-in user, `nil` when there is no account.
    package var user: String?
    /// The largest asset file a save may copy in.
    package var assetSizeLimit: Int64 = 50 * 1024 * 1024
    /// Whose private data a shared-database call reads and writes, set by the sharing layer once
    /// the share rules allowed it; `nil` means the user's own.
    package var sharedOwner: String?

    package init(scope: Database.Scope, user: String?, assetSizeLimit: Int64 = 50 * 1024 * 1024) {
        self.scope = scope
        self.user = user
        self.assetSizeLimit = assetSizeLimit
    }

    /// The `owner` column: empty for the public database, the user for private and shared.
    package var owner: String {
        switch scope {
        case .public: ""
        case .private, .shared: sharedOwner ?? user ?? ""
        }
    }

    /// The user record name written as creator and modifier: `_<user>`.
    package var userRecordName: String { "_" + (user ?? "") }
}
