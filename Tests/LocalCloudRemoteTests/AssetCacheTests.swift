import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// The asset cache's bound: least recently used files go first; a queued change's asset never does.
@Suite("Remote asset cache")
struct AssetCacheTests {
    @Test func theLeastRecentlyUsedAssetsAreEvictedPastTheLimit() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-lru-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Bob uploads three 100 kB photos; alice, with a 250 kB cache, reads them one by one.
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: root.appendingPathComponent("bob")))
        for (index, name) in ["a", "b", "c"].enumerated() {
            let photo = root.appendingPathComponent("\(name).bin")
            try Data(repeating: UInt8(index + 1), count: 100_000).write(to: photo)
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["image"] = Asset(fileURL: photo)
            _ = try await bob.publicCloudDatabase.save(record)
        }
        var configuration = try await server.configuration(user: "alice", dataDirectory: root.appendingPathComponent("alice"))
        configuration.assetCacheLimit = 250_000
        let clock = ManualClock()
        configuration.clock = clock.wallClock
        let alice = Container(configuration: configuration)
        func file(_ name: String) async throws -> URL? {
            let results = try await alice.publicCloudDatabase.records(for: [Record.ID(recordName: name)], desiredKeys: ["image"])
            return try (results[Record.ID(recordName: name)]?.get()["image"] as? Asset)?.fileURL
        }
        let a = try #require(try await file("a"))
        clock.advance(by: 1)   // distinct last uses, on the store's clock
        let b = try #require(try await file("b"))
        clock.advance(by: 1)
        _ = try await file("a")                          // a is used again: b is now the oldest
        clock.advance(by: 1)
        let c = try #require(try await file("c"))
        #expect(FileManager.default.fileExists(atPath: a.path), "recently used: kept")
        #expect(!FileManager.default.fileExists(atPath: b.path), "least recently used: evicted")
        #expect(FileManager.default.fileExists(atPath: c.path), "just downloaded: kept")
        // Evicted bytes come back from the server when asked for again.
        let again = try #require(try await file("b"))
        #expect(try Data(contentsOf: again) == Data(repeating: 2, count: 100_000))
        await server.stop()
    }
}
