import FoodPinCore
import Foundation
import LocalCloud
import LocalCloudCLI
import Synchronization

/// The container, backend and seeder that `foodpin`, `foodpin list` and `foodpin add` share.
///
/// The screen and `foodpin list` seed an empty public database before their first query (so a
/// fresh data directory shows the samples); once seeded that costs a schema read and a one-row
/// query, and concurrent first runs still make one copy. `foodpin add` only makes sure the schema
/// is in place and adds exactly what it was asked to: scripts that add N restaurants to a fresh
/// directory find N (the reliability runs count them), and the next screen or list seeds nothing,
/// since the database is no longer empty.
struct CloudSession {
    let container: Container
    let backend: CloudDiscoverBackend
    let seeder: SampleSeeder?
    /// The user's lists (private database) and those shared with them.
    let lists: CloudListsBackend

    /// - Parameter queuesWhenOffline: on a server, whether adds and deletes made while it cannot be
    ///   reached wait in the outbox (`foodpin add --no-queue` says no).
    init(options: GlobalOptions, queuesWhenOffline: Bool = true,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(cloud: options.cloud, queuesWhenOffline: queuesWhenOffline, environment: environment)
    }

    init(cloud: CloudOptions, queuesWhenOffline: Bool = true,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        var configuration = cloud.configuration(environment: environment).applyingSavedCredentials(environment: environment)
        configuration.queuesWhenOffline = queuesWhenOffline
        let container = Container(configuration: configuration)
        // A server has its own schema and data: only a local container is seeded.
        let seeder = configuration.serverURL != nil ? nil : SampleAssets.locate(environment: environment).map {
            SampleSeeder(container: container, assets: $0)
        }
        self.container = container
        self.seeder = seeder
        backend = CloudDiscoverBackend(container: container, seeder: seeder)
        lists = CloudListsBackend(container: container, discover: backend)
    }
}

extension CloudSession {
    /// Keeps the container, and so its SQLite connections, until the process exits: `foodpin add`
    /// and `foodpin list` call it, as one-shot commands.
    ///
    /// Closing the last connection to a WAL database checkpoints the WAL into the database file and
    /// syncs both: 20–40 ms after `foodpin add` has done its work, and about 3 ms of a 20 ms
    /// `foodpin list` (docs/PERFORMANCE.md). An exit without closing loses nothing: each commit is
    /// in the WAL before it returns, the next process reads it from there, and writers checkpoint on
    /// their own every 1,000 pages. The screen, which runs for minutes, still closes the store when
    /// it quits.
    func leaveOpenAtExit() {
        Self.openUntilExit.withLock { $0.append(container) }
    }

    private static let openUntilExit = Mutex<[Container]>([])
}
