import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServerPostgres
import LocalCloudServer
import Logging

/// `localcloud serve`: CloudKit Web Services for every container in the data directory.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every container in the data directory over CloudKit Web Services (HTTP or HTTPS).",
        discussion: """
            Prints one line, `listening on http://HOST:PORT`, once connections are accepted. \
            SIGTERM or SIGINT stops it after in-flight requests finish (exit 0). \
            The request log (method, path, status, milliseconds; never tokens) goes to stderr. \
            The web console is at /console on the same port (administrators: `localcloud admins add`); \
            --no-console turns it off.
            """
    )
    @OptionGroup var global: GlobalOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8642

    @Option(name: .customLong("tls-certificate"), help: ArgumentHelp("A PEM certificate chain: serve HTTPS (with --tls-key).", valueName: "pem"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-certificate.", valueName: "pem"))
    var tlsKey: String?

    @Option(name: .customLong("max-json-bytes"), help: "The largest JSON request body (QUOTA_EXCEEDED above).")
    var maxJSONBytes = 16 * 1024 * 1024

    @Option(name: .customLong("max-asset-bytes"), help: "The largest asset upload.")
    var maxAssetBytes = 50 * 1024 * 1024

    @Option(name: .customLong("token-lifetime"), help: ArgumentHelp("How long web auth tokens last: seconds, or a number with s, m, h or d.", valueName: "duration"))
    var tokenLifetime = "14d"

    @Option(name: .customLong("read-timeout"), help: "Seconds a connection may send nothing before it is closed.")
    var readTimeout = 30

    @Flag(name: .customLong("no-console"), help: "Do not serve the web console at /console.")
    var noConsole = false

    @Option(name: .customLong("bench-static-response"), help: ArgumentHelp("Benchmark only: serve this file's bytes from memory at POST /bench/static.", visibility: .hidden))
    var benchStaticResponse: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-certificate and --tls-key go together") }
        guard maxJSONBytes > 0, maxAssetBytes > 0, readTimeout > 0 else { throw ValidationError("limits must be positive") }
        guard Self.seconds(tokenLifetime) != nil else { throw ValidationError("--token-lifetime: use seconds or a number with s, m, h or d (e.g. 14d)") }
    }

    func run() async throws {
        let session = try await Session(global)
        var configuration = ServerConfiguration(dataDirectory: session.container.configuration.dataDirectory)
        configuration.storeOpener = session.container.configuration.storeOpener
        // With a database, what a node keeps beside the records lives there too, shared by every node.
        var state: ServerState?
        if let url = try global.databaseURL() { state = try await ServerState.postgres(url: url) }
        configuration.host = host
        configuration.port = port
        configuration.tlsCertificatePath = tlsCertificate
        configuration.tlsKeyPath = tlsKey
        configuration.maxJSONBytes = maxJSONBytes
        configuration.maxAssetBytes = maxAssetBytes
        configuration.readTimeout = .seconds(readTimeout)
        configuration.tokenLifetime = .seconds(Self.seconds(tokenLifetime) ?? 14 * 86_400)
        configuration.console = !noConsole
        configuration.consoleContainer = session.containerIdentifier
        if let benchStaticResponse {
            configuration.benchStaticResponse = Array(try Data(contentsOf: URL(fileURLWithPath: benchStaticResponse)))
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["LOCALCLOUD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }
        let server = CloudServer.open(configuration: configuration, logger: Logger(label: "localcloud.serve"), state: state)
        try await server.run { url in
            // The one line scripts wait for, written unbuffered: stdout may be a pipe.
            FileHandle.standardOutput.write(Data("listening on \(url)\n".utf8))
        }
    }

    /// `90`, `90s`, `15m`, `12h`, `14d` → seconds.
    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last, let multiplier = units[unit], let value = Int64(text.dropLast()), value > 0 {
            return value.multipliedReportingOverflow(by: multiplier).overflow ? nil : value * multiplier
        }
        return Int64(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
