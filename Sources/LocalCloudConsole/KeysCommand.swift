import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudServer

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Register, list or revoke server-to-server keys (requests signed with them act as the developer on the public database).",
        discussion: """
            A key is for one container and environment (--environment, default development).
            Examples:
              openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem
              openssl ec -in eckey.pem -pubout -out eckey.pub
              KEY_ID=$(localcloud keys add --public-key eckey.pub)
            """,
        subcommands: [Add.self, List.self, Revoke.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a P-256 public key (PEM) and print only its key ID.")
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The public key, PEM (`openssl ec -in eckey.pem -pubout`).", valueName: "path")) var publicKey: String
        @Option(help: "A name to recognise the key by.") var name: String?

        func run() async throws {
            let session = try await Session(global)
            let pem: String
            do {
                pem = try String(contentsOf: URL(fileURLWithPath: (publicKey as NSString).expandingTildeInPath), encoding: .utf8)
            } catch {
                throw ConsoleFailure(message: "cannot read \(publicKey): \(error.localizedDescription)")
            }
            let key = try await session.identityStore.addServerKey(
                publicKeyPEM: pem, container: session.containerIdentifier,
                environment: session.container.configuration.environment, name: name)
            Output.line(key.id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the server-to-server keys: key ID, environment, name, created, revoked.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try await Session(global)
            let keys = try await session.identityStore.serverKeys(container: session.containerIdentifier)
            if global.json {
                try Output.json(keys.map { key in
                    CredentialJSON(idKey: .keyID, id: key.id, environment: key.environment.rawValue, name: key.name,
                                   created: key.created, revoked: key.revoked)
                })
                return
            }
            Output.table(["KEY ID", "ENVIRONMENT", "NAME", "CREATED", "REVOKED"], keys.map { key in
                [key.id, key.environment.rawValue, key.name ?? "", IdentityOutput.date(key.created), key.revoked.map(IdentityOutput.date) ?? ""]
            })
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a server-to-server key: its signatures get AUTHENTICATION_FAILED.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The key ID.", valueName: "id")) var id: String

        func run() async throws {
            let session = try await Session(global)
            guard try await session.identityStore.revokeServerKey(id: id.lowercased(), container: session.containerIdentifier, at: Date()) else {
                throw CloudError(.unknownItem, "No live server-to-server key with ID \(id.prefix(64))")
            }
            global.json ? try Output.json(["revoked": id.lowercased()]) : Output.line("Revoked key \(id.lowercased())")
        }
    }
}
