import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import LocalCloudServerPostgres

/// A fresh database on the test cluster and containers on it, with a temporary data directory
/// for the asset cache; removed when the value goes away.
package final class PostgresFixture: @unchecked Sendable {
    package let url: PostgresURL
    package let directory: URL

    /// - Parameter cluster: the process's shared cluster unless given (a test that restarts its own).
    /// - Parameter connectTimeout: the URL's `connect_timeout` when not the default.
    package init(cluster: PostgresCluster? = nil, connectTimeout: Duration? = nil) async throws {
        let cluster = if let cluster { cluster } else { try await PostgresCluster.shared() }
        var url = try await cluster.makeDatabase()
        if let connectTimeout { url.connectTimeout = connectTimeout }
        self.url = url
        directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("localcloud-pg-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Adds a discoverable account with an email address to this database's identity store, as
    /// `localcloud users add NAME --email ADDRESS` does against it.
    package func addAccount(_ name: String, email: String, container: String) async throws {
        _ = try await PostgresIdentityStore(url: url).addUser(name, password: "correct horse battery staple", container: container,
                                                              email: email, hasher: PasswordHasher(cost: 4))
    }

    /// A container on this database; `checksIndexes` off by default, as in LocalCloudTests.
    ///
    /// - Parameter node: `2` opens the database as a second server node would: its own pool,
    ///   store, schema cache and LISTEN connection (through `localhost` rather than `127.0.0.1`,
    ///   so this process keeps the two apart), and its own asset cache.
    package func container(user: String? = "alice", environment: Container.Environment = .development,
                           checksIndexes: Bool = false, identifier: String = "iCloud.Test", node: Int = 1,
                           clock: WallClock = .system) -> Container {
        var nodeURL = url
        if node == 2 { nodeURL.host = "localhost" }
        let data = node == 1 ? directory : directory.appendingPathComponent("node\(node)", isDirectory: true)
        var configuration = Container.Configuration(containerIdentifier: identifier, dataDirectory: data, user: user,
                                                    environment: environment)
        configuration.checksIndexes = checksIndexes
        configuration.storeOpener = .postgres(nodeURL)
        configuration.clock = clock
        return Container(configuration: configuration)
    }

    /// The store behind a container of this fixture, for plans and internals.
    package func store(identifier: String = "iCloud.Test", environment: Container.Environment = .development,
                       node: Int = 1) async throws -> PostgresStore {
        var nodeURL = url
        if node == 2 { nodeURL.host = "localhost" }
        return try await PostgresStore.open(url: nodeURL, containerIdentifier: identifier, environment: environment)
    }
}
