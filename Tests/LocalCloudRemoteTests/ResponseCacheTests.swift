import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// Reads while the server is away: the first pages and records last read, with their assets.
@Suite("Remote cache")
struct ResponseCacheTests {
    /// A running server and alice's configuration on a fresh client directory.
    static func aliceOnAServer() async throws -> (RemoteTestServer, URL, Container.Configuration) {
        let server = try await RemoteTestServer.start()
        let client = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-cache-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: client, withIntermediateDirectories: true)
        return (server, client, try await server.configuration(user: "alice", dataDirectory: client))
    }

    @Test func aLaunchReadsTheLastFirstPageFromTheCache() async throws {
        let (server, client, configuration) = try await Self.aliceOnAServer()
        defer { server.removeData(); try? FileManager.default.removeItem(at: client) }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let online = Container(configuration: configuration)
        #expect(try await online.cachedRecords(matching: query, desiredKeys: ["name"], resultsLimit: 2) == nil, "nothing read yet")
        for name in ["one", "two", "three"] {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["name"] = name
            _ = try await online.publicCloudDatabase.save(record)
        }
        _ = try await online.publicCloudDatabase.records(matching: query, desiredKeys: ["name"], resultsLimit: 2)
        await server.stop()

        // A new process: the page from the cache, with its cursor.
        let launched = Container(configuration: configuration)
        let cached = try #require(try await launched.cachedRecords(matching: query, desiredKeys: ["name"], resultsLimit: 2))
        #expect(cached.records.map { $0["name"] as? String } == ["three", "two"])
        #expect(cached.cursor != nil)
        // Another query, and a local container, have nothing cached: nil, not a network error.
        let other = Query(recordType: "Restaurant", predicate: Predicate(format: "name == %@", "one"))
        #expect(try await launched.cachedRecords(matching: other, resultsLimit: 2) == nil)
        let local = Container(configuration: .init(containerIdentifier: "iCloud.Local", dataDirectory: client.appendingPathComponent("local"), user: "alice"))
        #expect(try await local.cachedRecords(matching: query, resultsLimit: 2) == nil)
    }

    @Test func theLastFirstPageAndLookedUpRecordsAnswerWhileTheServerIsAway() async throws {
        let (server, client, configuration) = try await Self.aliceOnAServer()
        defer { server.removeData(); try? FileManager.default.removeItem(at: client) }
        let photo = client.appendingPathComponent("photo.bin")
        try Data(repeating: 7, count: 50_000).write(to: photo)
        let online = Container(configuration: configuration)
        for name in ["one", "two", "three"] {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["name"] = name
            if name == "two" { record["image"] = Asset(fileURL: photo) }
            _ = try await online.publicCloudDatabase.save(record)
        }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let fresh = try await online.publicCloudDatabase.records(matching: query, desiredKeys: ["name"], resultsLimit: 2)
        _ = try await online.publicCloudDatabase.records(for: [Record.ID(recordName: "two")], desiredKeys: ["image"])
        #expect(online.serverIsReachable == true)
        await server.stop()

        // A new process, the server away: the same page, the same cursor, the photo from the cache.
        let offline = Container(configuration: configuration)
        let cached = try await offline.publicCloudDatabase.records(matching: query, desiredKeys: ["name"], resultsLimit: 2)
        #expect(cached.matchResults.map(\.0) == fresh.matchResults.map(\.0))
        #expect(try cached.matchResults.map { try $0.1.get()["name"] as? String } == ["three", "two"])
        #expect(cached.queryCursor != nil)
        #expect(offline.serverIsReachable == false)
        let image = try await offline.publicCloudDatabase.records(for: [Record.ID(recordName: "two")], desiredKeys: ["image"])
        let asset = try #require(try image[Record.ID(recordName: "two")]?.get()["image"] as? Asset)
        #expect(try Data(contentsOf: #require(asset.fileURL)) == Data(repeating: 7, count: 50_000))
        // What was never read is not invented: it fails with the network error.
        let unknown = try await offline.publicCloudDatabase.records(for: [Record.ID(recordName: "one")], desiredKeys: ["image"])
        #expect(throws: CloudError.self) { try unknown[Record.ID(recordName: "one")]?.get() }
        let other = Query(recordType: "Restaurant", predicate: Predicate(format: "name == %@", "one"))
        await #expect(throws: CloudError.self) { try await offline.publicCloudDatabase.records(matching: other) }

        let restarted = try await RemoteTestServer.start(restarting: server)
        _ = try await offline.publicCloudDatabase.records(matching: query, desiredKeys: ["name"], resultsLimit: 2)
        #expect(offline.serverIsReachable == true)
        await restarted.stop()
    }

    @Test func searchAsYouTypeAnswersFromTheCachedPagesWhileTheServerIsAway() async throws {
        let (server, client, configuration) = try await Self.aliceOnAServer()
        defer { server.removeData(); try? FileManager.default.removeItem(at: client) }
        let online = Container(configuration: configuration)
        let saved: [(String, String, String)] = [
            ("cafe", "Café Déjà Vu", "Bistro"), ("tokyo", "Ramen Tokyo", "Ramen"),
            ("cabbage", "Cabbage Patch", "Vegan"), ("ichiran", "一蘭拉麵", "Ramen"),
        ]
        for (recordName, name, type) in saved {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: recordName))
            record["name"] = name
            record["type"] = type
            _ = try await online.publicCloudDatabase.save(record)
        }
        func search(_ container: Container, _ text: String) async throws -> [String] {
            let query = Query(recordType: "Restaurant", predicate: .textSearch(asTyped: text))
            query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
            return try await container.publicCloudDatabase.records(matching: query).matchResults.map(\.0.recordName)
        }
        let texts = ["c", "caf", "cafe de", "caf ", "ram", "拉麵", "一蘭", "ramen 拉", "tok", "x"]
        var answers: [String: [String]] = [:]
        for text in texts { answers[text] = try await search(online, text) }
        #expect(answers["caf"] == ["cafe"])
        #expect(answers["ram"] == ["ichiran", "tokyo"])
        // The full list read once: what the cache searches later.
        let list = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        list.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        _ = try await online.publicCloudDatabase.records(matching: list)
        await server.stop()

        let offline = Container(configuration: configuration)
        for text in texts {
            #expect(try await search(offline, text) == answers[text], "\(text)")
        }
        #expect(try await search(offline, "cabbage pa") == ["cabbage"])
        // A restaurant saved while away waits in the outbox, and is found too.
        let pending = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "kissa"))
        pending["name"] = "Café Kissa"
        _ = try await offline.publicCloudDatabase.save(pending)
        let withPending = try await search(offline, "caf")
        #expect(withPending == ["kissa", "cafe"])
        // Other queries the server never answered still fail with the network error.
        let other = Query(recordType: "Restaurant", predicate: .textSearch("cafe"))
        await #expect(throws: CloudError.self) { try await offline.publicCloudDatabase.records(matching: other) }
    }
}
