import Foundation
import LocalCloud
import LocalCloudPostgres

/// A fresh database on the test cluster and containers on it, with a temporary data directory
/// for the asset cache; removed when the value goes away.
package final class PostgresFixture: @unchecked Sendable {
    package let url: PostgresURL
    package let directory: URL

    package init() throws {
        url = try PostgresCluster.shared().makeDatabase()
        directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("localcloud-pg-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A container on this database; `checksIndexes` off by default, as in LocalCloudTests.
    package func container(user: String? = "alice", environment: Container.Environment = .development,
                           checksIndexes: Bool = false, identifier: String = "iCloud.Test") -> Container {
        var configuration = Container.Configuration(containerIdentifier: identifier, dataDirectory: directory, user: user,
                                                    environment: environment)
        configuration.checksIndexes = checksIndexes
        configuration.storeOpener = .postgres(url)
        return Container(configuration: configuration)
    }
}
