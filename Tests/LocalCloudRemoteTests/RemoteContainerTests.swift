import Foundation
import LocalCloud
import Synchronization
import LocalCloudServerTesting
import Testing

/// What only a remote container has: choosing the server from the environment or a saved
/// sign-in, and the server going away and coming back on the same port.
@Suite("Remote container")
struct RemoteContainerTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("lcr-client-\(UUID().uuidString)", isDirectory: true)
    }

    @Test func theServerComesFromTheEnvironmentThenSavedCredentialsThenLocal() throws {
        let config = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        let base = ["LOCALCLOUD_HOME": "/tmp/x", "LOCALCLOUD_USER": "carol", "XDG_CONFIG_HOME": config.path]
        let local = Container.Configuration.fromEnvironment(environment: base).applyingSavedCredentials(environment: base)
        #expect(local.serverURL == nil, "nothing saved: the embedded store")

        try CredentialsFile.standard(environment: base).save(SavedCredentials(
            server: "http://saved.example:8642", container: Container.Configuration.defaultIdentifier, environment: .production,
            user: "alice", apiToken: "saved-api", webAuthToken: "saved-web"))
        let saved = Container.Configuration.fromEnvironment(environment: base).applyingSavedCredentials(environment: base)
        #expect(saved.serverURL?.absoluteString == "http://saved.example:8642")
        #expect(saved.apiToken == "saved-api" && saved.webAuthToken == "saved-web")
        #expect(saved.user == "alice" && saved.environment == .production, "the saved sign-in's user and environment")

        var env = base
        env["LOCALCLOUD_URL"] = "https://env.example"
        env["LOCALCLOUD_API_TOKEN"] = "env-api"
        env["LOCALCLOUD_WEB_AUTH_TOKEN"] = "env-web"
        let fromEnv = Container.Configuration.fromEnvironment(environment: env).applyingSavedCredentials(environment: env)
        #expect(fromEnv.serverURL?.absoluteString == "https://env.example")
        #expect(fromEnv.apiToken == "env-api" && fromEnv.webAuthToken == "env-web" && fromEnv.user == "carol")

        env = base
        env["LOCALCLOUD_URL"] = ""
        #expect(Container.Configuration.fromEnvironment(environment: env).applyingSavedCredentials(environment: env).serverURL == nil,
                "an empty LOCALCLOUD_URL keeps the container local")
    }

    @Test func theServerGoingAwayAndComingBackOnTheSamePort() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: client))
        let saved = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "before"))
        saved["name"] = "Before the restart"
        _ = try await alice.publicCloudDatabase.save(saved)

        await server.stop()
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        do {
            _ = try await alice.publicCloudDatabase.records(matching: query)
            Issue.record("a query with the server down succeeded")
        } catch let error as CloudError {
            #expect(error.code == .networkUnavailable, "\(error)")
            #expect(error.message.hasPrefix("Cannot reach 127.0.0.1:\(server.port)"))
        }

        let restarted = try await RemoteTestServer.start(restarting: server)
        defer { Task { await restarted.stop() } }
        #expect(restarted.port == server.port)
        let found = try await alice.publicCloudDatabase.records(matching: query)
        #expect(try found.matchResults.map { try $0.1.get()["name"] as? String } == ["Before the restart"])
        await restarted.stop()
    }

    @Test func aRevokedSignInIsNotAuthenticatedWithTheServerAsCause() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        var configuration = try await server.configuration(user: "alice", dataDirectory: client)
        configuration.webAuthToken = String(repeating: "x", count: 120)
        let container = Container(configuration: configuration)
        do {
            _ = try await container.publicCloudDatabase.save(Record(recordType: "Restaurant"))
            Issue.record("a save with a forged token succeeded")
        } catch let error as CloudError {
            #expect(error.code == .notAuthenticated)
            #expect((error.cause as? ServerRefusedCredentials)?.serverErrorCode == "AUTHENTICATION_FAILED")
        }
        await server.stop()
    }

    @Test func notificationsSayWhenTheChangeWasThisProcesssOwn() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: client))
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: Self.temporaryDirectory()))
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "all", options: [.firesOnRecordCreation]))
        let received = Mutex<[LocalCloud.Notification]>([])
        let listener = Task {
            for await notification in alice.notifications { received.withLock { $0.append(notification) } }
        }
        defer { listener.cancel() }
        // Bob saves until the stream is open and his first notification arrives.
        var count = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while received.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bob-\(count)"))
            count += 1
            _ = try await bob.publicCloudDatabase.save(record)
            try await Task.sleep(for: .milliseconds(50))
        }
        let fromBob = try #require(received.withLock { $0.first })
        #expect(fromBob.modifiedBy == nil, "another process's change: the payload does not say who")
        _ = try await alice.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "alice-own")))
        let arrived = ContinuousClock.now + .seconds(20)
        while !received.withLock({ $0.contains { $0.recordID?.recordName == "alice-own" } }) && ContinuousClock.now < arrived {
            try await Task.sleep(for: .milliseconds(10))
        }
        let own = try #require(received.withLock { $0.first { $0.recordID?.recordName == "alice-own" } })
        #expect(own.modifiedBy?.recordName == "_alice", "alice's own save is marked as hers, so FoodPin raises no banner")
        await server.stop()
    }
}
