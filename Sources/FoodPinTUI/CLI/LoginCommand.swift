import ArgumentParser
import FoodPinCore
import Foundation
import LocalCloud

/// `foodpin login URL [--api-token T] [--user NAME] [--password-stdin]`: signs in to a
/// `localcloud serve` through its sign-in endpoint and saves the server, the API token and the
/// web auth token (``CredentialsFile``, mode 0600), per server and container. From then on
/// `foodpin` uses that server unless `LOCALCLOUD_URL` says otherwise.
///
/// Exit codes: 0 signed in; 1 refused (wrong password, unknown API token) or unreachable;
/// 2 missing input. Every message is one line on stderr.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a LocalCloud server and remember it."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The server, as `localcloud serve` prints it (http://HOST:PORT).", valueName: "url"))
    var url: String

    @Option(name: .customLong("api-token"), help: ArgumentHelp(
        "The app's API token (`localcloud tokens create`); default: LOCALCLOUD_API_TOKEN, else the one saved for this server.",
        valueName: "token"))
    var apiToken: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    func validate() throws {
        guard let server = URL(string: url), let scheme = server.scheme?.lowercased(), ["http", "https"].contains(scheme),
              server.host != nil else {
            throw ValidationError("The server must be an http:// or https:// URL, like `localcloud serve` prints.")
        }
    }

    mutating func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = options.cloud.configuration(environment: environment)
        let file = CredentialsFile.standard(environment: environment)
        let server = SavedCredentials.normalized(url)
        guard let user = configuration.user else { fail("a user name is needed: pass --user NAME", code: 2) }
        let saved = try? file.credentials(server: server, container: configuration.containerIdentifier)
        guard let apiToken = apiToken ?? environment["LOCALCLOUD_API_TOKEN"].flatMap({ $0.isEmpty ? nil : $0 }) ?? saved?.apiToken
        else { fail("an API token is needed: pass --api-token (the server's `localcloud tokens create` prints one)", code: 2) }
        guard let serverURL = URL(string: server) else { fail("\(server) is not a URL", code: 2) }

        let password: String
        if passwordStdin {
            guard let line = readLine(strippingNewline: true) else { fail("--password-stdin: standard input is empty", code: 2) }
            password = line
        } else {
            guard let typed = PasswordPrompt.read("Password for \(user) at \(serverURL.host ?? server): ") else {
                fail("cannot ask for a password without a terminal: use --password-stdin", code: 2)
            }
            password = typed
        }

        var signingIn = configuration
        signingIn.serverURL = serverURL
        signingIn.apiToken = apiToken
        do {
            try file.save(try await Container.signIn(user: user, password: password, configuration: signingIn))
        } catch let error as CloudError {
            fail(error.message, code: 1)
        }
        printError("signed in to \(Self.host(serverURL)) as \(user)")
    }

    /// The host (and port) people know the server by.
    private static func host(_ url: URL) -> String {
        guard let host = url.host else { return url.absoluteString }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    private func fail(_ message: String, code: Int32) -> Never {
        printFailure("foodpin login", TextSanitizer.line(message))
        Foundation.exit(code)
    }
}

/// `foodpin logout [URL]`: ends the saved sign-in for the container (on one server, or on all):
/// each server is asked to revoke the web auth token (`POST /auth/1/{container}/signout`), which
/// closes that sign-in's push streams and ends its push tokens, then the token is forgotten here.
/// A server that cannot be reached is reported on stderr; the token is still forgotten, and stays
/// valid there until it expires or `localcloud users signout` ends it.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget a saved sign-in."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The server to forget; default: every server of the container.", valueName: "url"))
    var url: String?

    mutating func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let container = options.cloud.configuration(environment: environment).containerIdentifier
        do {
            let file = CredentialsFile.standard(environment: environment)
            let key = url.map(SavedCredentials.normalized)
            let ending = try file.load().filter { $0.container == container && (key == nil || $0.server == key) }
            for entry in ending where URL(string: entry.server) != nil {
                do {
                    try await Container.signOut(entry)
                } catch let error as CloudError {
                    printError("foodpin logout: \(TextSanitizer.line(entry.server)) was not told (\(TextSanitizer.line(error.message))); "
                               + "the sign-in stays valid there until it expires or `localcloud users signout \(TextSanitizer.line(entry.user))`")
                }
            }
            let removed = try file.remove(server: url, container: container)
            printError(removed == 0 ? "not signed in" : "signed out")
        } catch let error as CloudError {
            printFailure("foodpin logout", TextSanitizer.line(error.message))
            throw ExitCode(1)
        }
    }
}
