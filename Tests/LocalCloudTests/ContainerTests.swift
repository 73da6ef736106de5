import Foundation
import GRDB
import Testing
@testable import LocalCloud

@Suite struct ContainerTests {
    @Test func twoUsersShareThePublicDatabaseButNotTheirPrivateOnes() async throws {
        let cloud = TestCloud()
        let alice = cloud.container(user: "alice")
        let bob = cloud.container(user: "bob")
        _ = try await alice.publicCloudDatabase.save(restaurant("Alice's public"))
        _ = try await bob.publicCloudDatabase.save(restaurant("Bob's public"))
        let secret = try await alice.privateCloudDatabase.save(restaurant("Alice's secret"))

        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        for container in [alice, bob] {
            let names = try await container.publicCloudDatabase.records(matching: query).matchResults
                .compactMap { try? $0.1.get()["name"] as? String }
            #expect(Set(names) == ["Alice's public", "Bob's public"])
        }
        #expect(try await alice.privateCloudDatabase.records(matching: query).matchResults.count == 1)
        #expect(try await bob.privateCloudDatabase.records(matching: query).matchResults.isEmpty)
        await #expect { try await bob.privateCloudDatabase.record(for: secret.recordID) } throws: {
            ($0 as? CloudError)?.code == .unknownItem
        }
        // Bob writing the same name in his private database makes a separate record.
        let bobs = Record(recordType: "Restaurant", recordID: secret.recordID)
        bobs["name"] = "Bob's own"
        _ = try await bob.privateCloudDatabase.save(bobs)
        #expect(try await alice.privateCloudDatabase.record(for: secret.recordID)["name"] as? String == "Alice's secret")
        // Creator is recorded per user.
        let bobsPublic = try #require(try await alice.publicCloudDatabase.records(matching: query).matchResults
            .compactMap { try? $0.1.get() }.first { $0["name"] as? String == "Bob's public" })
        #expect(bobsPublic.creatorUserRecordID?.recordName == "_bob")
        // Both containers share one pool on one file.
        await #expect(try alice.core.sqliteStore() === bob.core.sqliteStore())
    }

    @Test func noAccountMeansReadOnlyPublicAndNoPrivate() async throws {
        let cloud = TestCloud()
        _ = try await cloud.container(user: "alice").publicCloudDatabase.save(restaurant("visible"))
        let anonymous = cloud.container(user: nil)
        #expect(try await anonymous.accountStatus() == .noAccount)
        await #expect { try await anonymous.userRecordID() } throws: { ($0 as? CloudError)?.code == .notAuthenticated }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        #expect(try await anonymous.publicCloudDatabase.records(matching: query).matchResults.count == 1)
        await #expect { try await anonymous.publicCloudDatabase.save(restaurant("nope")) } throws: {
            ($0 as? CloudError)?.code == .notAuthenticated && ($0 as? CloudError)?.code.rawValue == 9
        }
        await #expect { try await anonymous.privateCloudDatabase.save(restaurant("nope")) } throws: {
            ($0 as? CloudError)?.code == .notAuthenticated
        }
    }

    @Test func accountStatusAndUserRecordID() async throws {
        let cloud = TestCloud()
        let container = cloud.container(user: "carol")
        #expect(try await container.accountStatus() == .available)
        #expect(try await container.userRecordID().recordName == "_carol")
        let saved = try await container.publicCloudDatabase.save(restaurant("mine"))
        #expect(saved.creatorUserRecordID == (try await container.userRecordID()))
    }

    @Test func environmentsAreStoredSeparately() async throws {
        let cloud = TestCloud()
        let development = cloud.container(environment: .development)
        let production = cloud.container(environment: .production)
        _ = try await development.publicCloudDatabase.save(restaurant("dev only"))
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        #expect(try await production.publicCloudDatabase.records(matching: query).matchResults.isEmpty)
        #expect(FileManager.default.fileExists(atPath: cloud.directory.appendingPathComponent("iCloud.Test/development.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: cloud.directory.appendingPathComponent("iCloud.Test/production.sqlite").path))
    }

    @Test func configurationFromTheEnvironment() {
        let explicit = Container.Configuration.fromEnvironment(environment: [
            "LOCALCLOUD_CONTAINER": "iCloud.Other", "LOCALCLOUD_HOME": "/data/lc", "LOCALCLOUD_USER": "dave",
            "LOCALCLOUD_LATENCY_MS": "250", "LOCALCLOUD_ENVIRONMENT": "production",
        ])
        #expect(explicit.containerIdentifier == "iCloud.Other")
        #expect(explicit.dataDirectory.path == "/data/lc")
        #expect(explicit.user == "dave")
        #expect(explicit.simulatedLatency == .milliseconds(250))
        #expect(explicit.environment == .production)
        #expect(explicit.databaseURL.path == "/data/lc/iCloud.Other/production.sqlite")
        #expect(explicit.assetSizeLimit == 50 * 1024 * 1024)

        let xdg = Container.Configuration.fromEnvironment(environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/e", "LOCALCLOUD_USER": ""])
        #expect(xdg.containerIdentifier == "iCloud.FoodPin")
        #expect(xdg.dataDirectory.path == "/xdg/localcloud")
        #expect(xdg.user == nil)
        #expect(xdg.environment == .development)
        #expect(xdg.simulatedLatency == .zero)

        let home = Container.Configuration.fromEnvironment(environment: ["HOME": "/home/e", "USER": "erin"])
        #expect(home.dataDirectory.path == "/home/e/.local/share/localcloud")
        #expect(home.user != nil)
        #expect(Container.Configuration.fromEnvironment(identifier: "iCloud.X", environment: ["HOME": "/h"]).containerIdentifier == "iCloud.X")
    }

    @Test func databaseIsWALWithMigrationsAndTheChangeLog() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let saved = try await db.save(restaurant("logged"))
        saved["name"] = "logged again"
        _ = try await db.save(saved)
        try await db.deleteRecord(withID: saved.recordID)
        let store = try await container.core.sqliteStore()
        let (mode, kinds, migrations) = try await store.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try String.fetchAll(db, sql: "SELECT kind FROM change_log ORDER BY seq"),
             try SQLiteStore.migrator.appliedMigrations(db))
        }
        #expect(mode == "wal")
        #expect(kinds == ["created", "updated", "deleted"])
        #expect(migrations.first?.hasPrefix("v1") == true && migrations.count == SQLiteStore.migrator.migrations.count)
    }

    @Test func anUnusableDataDirectoryIsBadDatabase() async throws {
        let cloud = TestCloud()
        let notADirectory = try cloud.file(named: "plain-file", bytes: Data("x".utf8))
        let container = Container(configuration: .init(dataDirectory: notADirectory, user: "alice"))
        await #expect { try await container.publicCloudDatabase.save(restaurant("nowhere")) } throws: {
            ($0 as? CloudError)?.code == .badDatabase && ($0 as? CloudError)?.code.rawValue == 24
        }
    }
}
