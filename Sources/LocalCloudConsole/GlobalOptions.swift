import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudCLI
import LocalCloudPostgres
import LocalCloudServerPostgres
import LocalCloudServer

/// The options every subcommand takes, before or after its name: the container (``CloudOptions``,
/// shared with `foodpin`), `--database` and `--json`. The root command and each command that runs
/// declare it as `@OptionGroup var global`, which is what lets ArgumentParser read it on either side.
///
/// `--database` lives here, not in ``CloudOptions``: `foodpin` links LocalCloudCLI and must not
/// link PostgreSQL's client.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    /// One option, two meanings told apart by the value: a `postgresql://` URL picks the store
    /// (issue 12's `--database`), `public` or `private` picks the CloudKit database of the records
    /// and zones commands (round 1's `--database`). Both may be given.
    @Option(name: .long, help: ArgumentHelp(
        "A PostgreSQL database instead of the data directory's SQLite files (default: LOCALCLOUD_DATABASE_URL); "
            + "on records and zones commands, public or private picks the CloudKit database. May be given twice.",
        valueName: "postgresql://USER@HOST:PORT/DB | public | private"))
    var database: [String] = []

    @Flag(name: .long, help: "Machine-readable JSON output.")
    var json = false

    /// `--database`, else `LOCALCLOUD_DATABASE_URL`; `nil` for the SQLite files.
    /// - Throws: a one-line ``ConsoleFailure`` for a malformed URL.
    func databaseURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresURL? {
        let urls = database.filter { $0.contains("://") }
        guard urls.count <= 1 else { throw ConsoleFailure(message: "--database: give one PostgreSQL URL, not \(urls.count)") }
        guard let text = urls.first ?? environment["LOCALCLOUD_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do {
            return try PostgresURL(text, environment: environment)
        } catch let error as CloudError {
            throw ConsoleFailure(message: error.message)
        }
    }

    func validate() throws {
        for value in database where !value.contains("://") && RecordPlace.DatabaseName(rawValue: value) == nil {
            throw ValidationError("--database: '\(value)' is neither public, private nor a postgresql:// URL")
        }
    }

    /// `--database public|private`, for the commands that work in one CloudKit database.
    /// - Throws: a one-line ``ConsoleFailure`` for a value that is neither a URL nor a database name.
    func databaseName() throws -> RecordPlace.DatabaseName? {
        let names = try database.filter { !$0.contains("://") }.map { value in
            guard let name = RecordPlace.DatabaseName(rawValue: value) else {
                throw ConsoleFailure(message: "--database: '\(value)' is neither public, private nor a postgresql:// URL")
            }
            return name
        }
        guard names.count <= 1 else { throw ConsoleFailure(message: "--database: give public or private once") }
        return names.first
    }

    /// The container configuration, opening PostgreSQL when a database URL is given; connects
    /// first, so a wrong, unreachable or refusing database is one clear line before any work.
    func configuration() async throws -> Container.Configuration {
        var configuration = cloud.configuration()
        if let url = try databaseURL() {
            try await Self.checkReachable(url)
            configuration.storeOpener = .postgres(url)
        }
        return configuration
    }

    /// The identity store: PostgreSQL's with a database URL, else the data directory's.
    func identityStore(dataDirectory: URL) throws -> any IdentityStore {
        if let url = try databaseURL() { return PostgresIdentityStore(url: url) }
        return SQLiteIdentityStore(dataDirectory: dataDirectory)
    }

    static func checkReachable(_ url: PostgresURL) async throws {
        do {
            try await PostgresStore.pool(for: url).checkReachable()
        } catch {
            throw ConsoleFailure(message: PostgresPool.startupMessage(error, url: url))
        }
    }
}
