import Foundation

/// A LocalCloud container, like `CKContainer`: one app's data, shared by every user of the machine.
///
/// ```swift
/// let container = Container.default()          // iCloud.FoodPin, or LOCALCLOUD_CONTAINER
/// let db = container.publicCloudDatabase
/// ```
public final class Container: Sendable {
    public let containerIdentifier: String
    public let configuration: Configuration
    /// Shared by every user of the container.
    public let publicCloudDatabase: Database
    /// The current user's own data; no other user can read it.
    public let privateCloudDatabase: Database
    /// Records other users shared with the current user.
    public let sharedCloudDatabase: Database

    let core: ContainerCore

    /// The container the process environment names (`LOCALCLOUD_CONTAINER`, default `iCloud.FoodPin`):
    /// on the server `LOCALCLOUD_URL` names, else on the one `foodpin login` saved, else local.
    public static func `default`() -> Container {
        Container(configuration: Configuration.fromEnvironment().applyingSavedCredentials())
    }

    /// A container by identifier, with the data directory, user and server from the environment
    /// (and saved sign-ins), as ``default()``.
    public convenience init(identifier: String) {
        self.init(configuration: Configuration.fromEnvironment(identifier: identifier).applyingSavedCredentials())
    }

    public convenience init(configuration: Configuration) {
        self.init(core: ContainerCore(configuration: configuration))
    }

    private init(core: ContainerCore) {
        configuration = core.configuration
        containerIdentifier = core.configuration.containerIdentifier
        self.core = core
        publicCloudDatabase = Database(scope: .public, core: core)
        privateCloudDatabase = Database(scope: .private, core: core)
        sharedCloudDatabase = Database(scope: .shared, core: core)
    }

    public func database(with scope: Database.Scope) -> Database {
        switch scope {
        case .public: publicCloudDatabase
        case .private: privateCloudDatabase
        case .shared: sharedCloudDatabase
        }
    }

    /// `.available` with a user, `.noAccount` without one.
    public func accountStatus() async throws -> AccountStatus {
        configuration.user == nil ? .noAccount : .available
    }

    /// The current user's record ID, `_<user>`; what `creatorUserRecordID` holds on their records.
    /// - Throws: `notAuthenticated` with no account.
    public func userRecordID() async throws -> Record.ID {
        guard configuration.user != nil else {
            throw CloudError(.notAuthenticated, "No account: set LOCALCLOUD_USER or configure a user")
        }
        return Record.ID(recordName: core.context(.private).userRecordName)
    }

    /// How many operations each of the container's databases runs at once (4 by default, as an
    /// app needs). A server raises it: concurrent saves that reach the store together share one
    /// commit, and four at a time would cap that.
    package func setMaximumConcurrentOperations(_ count: Int) {
        for database in [publicCloudDatabase, privateCloudDatabase, sharedCloudDatabase] {
            database.queue.maxConcurrentOperationCount = max(1, count)
        }
    }

    /// This container, sharing its open store, as seen by `user` (`nil`: no account).
    ///
    /// For servers that act for many users over one store; an app has one user and never needs it.
    package func acting(as user: String?) -> Container {
        Container(core: core.acting(as: user))
    }
}
