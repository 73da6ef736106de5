import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// LocalCloud's public sign-in, as an app uses it (`foodpin login`/`logout`): against a real server,
/// through the credentials file, to a container acting as the user, and out again.
@Suite("Sign-in")
struct SignInTests {
    @Test func signingInSavesASignInThatTheNextContainerUsesAndSigningOutEndsIt() async throws {
        let server = try await RemoteTestServer.start()
        defer { Task { await server.stop(); server.removeData() } }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-signin-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_CONFIG_HOME": home.path, "LOCALCLOUD_HOME": home.appendingPathComponent("data").path,
                           "LOCALCLOUD_CONTAINER": server.container, "LOCALCLOUD_USER": ""]

        var configuration = Container.Configuration.fromEnvironment(environment: environment)
        configuration.serverURL = server.baseURL
        configuration.apiToken = server.apiToken
        await #expect(throws: CloudError.self, "a wrong password is refused") {
            try await Container.signIn(user: "alice", password: "wrong", configuration: configuration)
        }
        var wrongToken = configuration
        wrongToken.apiToken = "not-a-token"
        await #expect(throws: CloudError.self, "a wrong API token is found at sign-in") {
            try await Container.signIn(user: "alice", password: RemoteTestServer.password, configuration: wrongToken)
        }

        let signIn = try await Container.signIn(user: "alice", password: RemoteTestServer.password, configuration: configuration)
        #expect(signIn.user == "alice")
        #expect(signIn.server == server.baseURL.absoluteString)
        #expect(signIn.container == server.container)
        #expect(!signIn.webAuthToken.isEmpty)
        let file = CredentialsFile.standard(environment: environment)
        try file.save(signIn)

        // The next container on this machine is alice's, on that server.
        let saved = Container.Configuration.fromEnvironment(environment: environment).applyingSavedCredentials(environment: environment)
        #expect(saved.serverURL == server.baseURL)
        #expect(saved.user == "alice")
        let container = Container(configuration: saved)
        #expect(try await container.accountStatus() == .available)
        let restaurant = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "signed-in"))
        restaurant["name"] = "Cafe Deadend"
        let stored = try await container.publicCloudDatabase.save(restaurant)
        #expect(stored.creatorUserRecordID == (try await container.userRecordID()))

        // Signing out revokes the token on the server: a second sign-out finds it gone.
        #expect(try await Container.signOut(signIn) == true)
        #expect(try await Container.signOut(signIn) == false)
        #expect(try file.remove(server: signIn.server, container: signIn.container) == 1)
    }
}
