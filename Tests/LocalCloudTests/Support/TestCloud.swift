import Foundation
@testable import LocalCloud

/// A fresh data directory in /tmp, removed when the value goes away.
final class TestCloud: @unchecked Sendable {
    let directory: URL

    init() {
        directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("localcloud-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func container(user: String? = "alice", environment: Container.Environment = .development,
                   latency: Duration = .zero, assetSizeLimit: Int64 = 50 * 1024 * 1024, checksIndexes: Bool = false) -> Container {
        var configuration = Container.Configuration(containerIdentifier: "iCloud.Test", dataDirectory: directory, user: user,
                                                    environment: environment, simulatedLatency: latency, assetSizeLimit: assetSizeLimit)
        // Most store tests query types that just-in-time creation leaves unindexed; the schema tests turn the checks on.
        configuration.checksIndexes = checksIndexes
        return Container(configuration: configuration)
    }

    /// A file with `bytes` in the test directory.
    func file(named name: String, bytes: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }
}

func restaurant(_ name: String, type: String = "Cafe") -> Record {
    let record = Record(recordType: "Restaurant")
    record["name"] = name
    record["type"] = type
    return record
}

/// The CloudError code `body` fails with, `nil` when it succeeds, `.internalError` for any other error.
func code(_ body: () async throws -> Void) async -> CloudError.Code? {
    do {
        try await body()
        return nil
    } catch let error as CloudError {
        return error.code
    } catch {
        return .internalError
    }
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func poll(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

// GRDB also exports `Record` and `Database`; in these tests the names mean LocalCloud's.
typealias Record = LocalCloud.Record
typealias Database = LocalCloud.Database
