import Foundation

/// Where a remote container lives and the credentials it presents: a `localcloud serve` (or any
/// CloudKit Web Services server), one container and environment, an API token and optionally a
/// signed-in user's web auth token.
package struct WebServicesEndpoint: Sendable, Hashable {
    /// The server's base URL (`https://cloud.example:8642`), without the `/database/1/…` path.
    package var serverURL: URL
    package var containerIdentifier: String
    package var environment: Container.Environment
    /// `ckAPIToken`: identifies the app.
    package var apiToken: String
    /// `ckWebAuthToken`: identifies the user; `nil` reads the public database anonymously.
    package var webAuthToken: String?

    package init(serverURL: URL, containerIdentifier: String, environment: Container.Environment,
                 apiToken: String, webAuthToken: String?) {
        self.serverURL = serverURL
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The host (and port) people know the server by, for status lines and messages.
    package var host: String {
        guard let host = serverURL.host else { return serverURL.absoluteString }
        return serverURL.port.map { "\(host):\($0)" } ?? host
    }

    /// `{server}/database/1/{container}/{environment}/{database}/{path}?ckAPIToken=…&ckWebAuthToken=…`
    package func databaseURL(_ scope: Database.Scope, _ path: String) -> String {
        authenticated("database/1/\(Self.segment(containerIdentifier))/\(environment.rawValue)/\(scope.wireName)/\(path)")
    }

    /// `{server}/database/1/{container}/{environment}/{path}` (push endpoints have no database segment).
    package func containerURL(_ path: String) -> String {
        authenticated("database/1/\(Self.segment(containerIdentifier))/\(environment.rawValue)/\(path)")
    }

    /// `{server}/auth/1/{container}/signin`
    package var signinURL: String {
        base + "auth/1/\(Self.segment(containerIdentifier))/signin"
    }

    /// `{server}/auth/1/{container}/signout?ckWebAuthToken=…`
    package var signoutURL: String {
        base + "auth/1/\(Self.segment(containerIdentifier))/signout?ckWebAuthToken=" + Self.queryValue(webAuthToken ?? "")
    }

    /// The tokens as query parameters, the way CloudKit Web Services takes them.
    private func authenticated(_ path: String) -> String {
        var url = base + path + "?ckAPIToken=" + Self.queryValue(apiToken)
        if let webAuthToken { url += "&ckWebAuthToken=" + Self.queryValue(webAuthToken) }
        return url
    }

    /// A URL the server handed out (an upload URL, a `downloadURL`), with the tokens added when it
    /// points at this server and does not carry them already.
    package func authenticating(_ url: String) -> String {
        guard url.hasPrefix(base), !url.contains("ckAPIToken=") else { return url }
        var url = url + (url.contains("?") ? "&" : "?") + "ckAPIToken=" + Self.queryValue(apiToken)
        if let webAuthToken { url += "&ckWebAuthToken=" + Self.queryValue(webAuthToken) }
        return url
    }

    private var base: String {
        let text = serverURL.absoluteString
        return text.hasSuffix("/") ? text : text + "/"
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

extension Database.Scope {
    /// The database segment of a CloudKit Web Services path.
    package var wireName: String {
        switch self {
        case .public: "public"
        case .private: "private"
        case .shared: "shared"
        }
    }
}
