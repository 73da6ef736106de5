import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudCLI
import LocalCloudPostgres
import LocalCloudServer

/// The options every subcommand takes, before or after its name: the container (``CloudOptions``,
/// shared with `foodpin`), `--database` and `--json`. The root command and each command that runs
/// declare it as `@OptionGroup var global`, which is what lets ArgumentParser read it on either side.
///
/// `--database` lives here, not in ``CloudOptions``: `foodpin` links LocalCloudCLI and must not
/// link PostgreSQL's client.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Option(name: .long, help: ArgumentHelp(
        "A PostgreSQL database instead of the data directory's SQLite files (default: LOCALCLOUD_DATABASE_URL).",
        valueName: "postgresql://USER@HOST:PORT/DB"))
    var database: String?

    @Flag(name: .long, help: "Machine-readable JSON output.")
    var json = false

    /// `--database`, else `LOCALCLOUD_DATABASE_URL`; `nil` for the SQLite files.
    /// - Throws: a one-line ``ConsoleFailure`` for a malformed URL.
    func databaseURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresURL? {
        guard let text = database ?? environment["LOCALCLOUD_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do {
            return try PostgresURL(text, environment: environment)
        } catch let error as CloudError {
            throw ConsoleFailure(message: error.message)
        }
    }

    /// The container configuration, opening PostgreSQL when a database URL is given; connects
    /// first, so a wrong, unreachable or refusing database is one clear line before any work.
    func configuration() throws -> Container.Configuration {
        var configuration = cloud.configuration()
        if let url = try databaseURL() {
            try Self.checkReachable(url)
            configuration.storeOpener = .postgres(url)
        }
        return configuration
    }

    /// The identity store: PostgreSQL's with a database URL, else the data directory's.
    func identityStore(dataDirectory: URL) throws -> any IdentityStore {
        if let url = try databaseURL() { return PostgresIdentityStore(url: url) }
        return SQLiteIdentityStore(dataDirectory: dataDirectory)
    }

    static func checkReachable(_ url: PostgresURL) throws {
        do {
            try PostgresStore.pool(for: url).checkReachable()
        } catch {
            throw ConsoleFailure(message: PostgresPool.startupMessage(error, url: url))
        }
    }
}
