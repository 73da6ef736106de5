import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudServer

struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Create, list or revoke the API tokens `localcloud serve` accepts (ckAPIToken).",
        discussion: """
            An API token identifies an app for one container and environment (--environment, default development). \
            Only its SHA-256 is stored: `tokens create` shows the token once.
            Examples:
              TOKEN=$(localcloud tokens create --name web)
              localcloud tokens list
              localcloud tokens revoke "$TOKEN"
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print only the token.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "A name to recognise the token by.") var name: String?

        func run() async throws {
            let session = try await Session(global)
            let token = try await session.identityStore.createAPIToken(
                container: session.containerIdentifier, environment: session.container.configuration.environment, name: name)
            Output.line(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the API tokens: ID (a digest prefix, not the token), environment, name, created, revoked.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try await Session(global)
            let tokens = try await session.identityStore.apiTokens(container: session.containerIdentifier)
            if global.json {
                try Output.json(tokens.map { token in
                    CredentialJSON(idKey: .id, id: token.id, environment: token.environment.rawValue, name: token.name,
                                   created: token.created, revoked: token.revoked)
                })
                return
            }
            Output.table(["ID", "ENVIRONMENT", "NAME", "CREATED", "REVOKED"], tokens.map { token in
                [token.id, token.environment.rawValue, token.name ?? "", IdentityOutput.date(token.created),
                 token.revoked.map(IdentityOutput.date) ?? ""]
            })
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API token: requests carrying it get AUTHENTICATION_FAILED.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The token, or the ID `tokens list` shows.", valueName: "token")) var token: String

        func run() async throws {
            let session = try await Session(global)
            let revoked = try await session.identityStore.revokeAPIToken(token, container: session.containerIdentifier)
            global.json ? try Output.json(["revoked": revoked.id]) : Output.line("Revoked API token \(revoked.id)")
        }
    }
}

extension Session {
    /// The identity store a running `localcloud serve` shares: the data directory's, or PostgreSQL's with `--database`.
    var identityStore: any IdentityStore {
        get throws { try global.identityStore(dataDirectory: container.configuration.dataDirectory) }
    }
}

/// How the identity commands print dates: ISO 8601, UTC, to the second.
/// An API token (`tokens list --json`, keyed `id`) or a server-to-server key (`keys list --json`,
/// keyed `keyID`): `name` and `revoked` are `null` when unset.
struct CredentialJSON: Encodable {
    enum IDKey: String { case id, keyID }

    var idKey: IDKey
    var id: String
    var environment: String
    var name: String?
    var created: Date
    var revoked: Date?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: Key.self)
        try keyed.encode(id, forKey: Key(idKey.rawValue))
        try keyed.encode(environment, forKey: Key("environment"))
        try keyed.encode(name, forKey: Key("name"))
        try keyed.encode(IdentityOutput.date(created), forKey: Key("created"))
        try keyed.encode(revoked.map(IdentityOutput.date), forKey: Key("revoked"))
    }
}

enum IdentityOutput {
    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
