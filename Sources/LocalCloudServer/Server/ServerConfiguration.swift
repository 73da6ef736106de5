import Foundation
import LocalCloud

/// Everything `localcloud serve` is told on its command line.
package struct ServerConfiguration: Sendable {
    package var host: String = "127.0.0.1"
    /// 0 picks a free port.
    package var port: Int = 8642
    /// Holds `<container>/<environment>.sqlite` for every container served.
    package var dataDirectory: URL
    /// PEM files; both set means HTTPS.
    package var tlsCertificatePath: String?
    package var tlsKeyPath: String?
    /// The largest JSON body accepted (QUOTA_EXCEEDED above it).
    package var maxJSONBytes: Int = 16 * 1024 * 1024
    /// The largest asset upload accepted.
    package var maxAssetBytes: Int = 50 * 1024 * 1024
    /// How long a web auth token stays valid.
    package var tokenLifetime: Duration = .seconds(14 * 24 * 3600)
    /// A client that sends nothing for this long is disconnected (slowloris).
    package var readTimeout: Duration = .seconds(30)
    /// Adds `POST /bench/static`, which returns fixed bytes from memory: the benchmark's HTTP limit.
    package var benchStaticResponse: [UInt8]?
    /// Opens every container's store elsewhere (PostgreSQL); `nil` means the SQLite files in the data directory.
    package var storeOpener: StoreOpener?
    /// Serves the web console at `/console` (`--no-console` turns it off).
    package var console = true
    /// The container the console shows when its address names none.
    package var consoleContainer = "iCloud.FoodPin"
    /// How long a console session lasts.
    package var consoleSessionLifetime: TimeInterval = 12 * 3600

    package init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    var scheme: String { tlsCertificatePath != nil ? "https" : "http" }
}
