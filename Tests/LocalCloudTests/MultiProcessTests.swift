import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// Real child processes (`localcloud-stress`) writing one container at once.
@Suite(.serialized) struct MultiProcessTests {
    /// The stress binary SwiftPM built next to the test bundle (`.build/<triple>/debug`).
    static func stressBinary() throws -> URL {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates {
            var url = directory
            for _ in 0..<3 {
                let binary = url.appendingPathComponent("localcloud-stress")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                url = url.deletingLastPathComponent()
            }
        }
        throw CloudError(.internalError, "localcloud-stress not found next to the tests; run `swift build --build-tests` first")
    }

    static func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = try stressBinary()
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func fourProcessesWriteOneContainerAtOnce() async throws {
        let cloud = TestCloud()
        let writers = 4, perWriter = 100
        var processes: [Process] = []
        for i in 0..<writers {
            processes.append(try Self.launch([
                "--data-dir", cloud.directory.path, "--user", "writer\(i)", "--prefix", "p\(i)",
                "--count", "\(perWriter)", "--batch", i == 3 ? "7" : "1", "--asset-bytes", i % 2 == 0 ? "512" : "0",
            ]))
        }
        // Read while they write.
        let reader = cloud.container(user: "reader")
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        #expect(await poll(timeout: .seconds(120)) { processes.allSatisfy { !$0.isRunning } })
        for process in processes {
            #expect(process.terminationStatus == 0, "a writer saw an error")
        }
        var names: Set<String> = []
        var (matches, cursor) = try await reader.publicCloudDatabase.records(matching: query, resultsLimit: 100)
        names.formUnion(matches.map(\.0.recordName))
        while let next = cursor {
            (matches, cursor) = try await reader.publicCloudDatabase.records(continuingMatchFrom: next, resultsLimit: 100)
            names.formUnion(matches.map(\.0.recordName))
        }
        let expected = Set((0..<writers).flatMap { w in (0..<perWriter).map { "p\(w)-\($0)" } })
        #expect(names == expected)
        let creators = try await reader.core.sqliteStore().read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT created_by FROM records ORDER BY 1")
        }
        #expect(creators == ["_writer0", "_writer1", "_writer2", "_writer3"])
        await #expect(try reader.core.sqliteStore().invariantViolations() == [])
    }

    @Test func killedWritersLoseNoAcknowledgedSaveAndLeaveNoDanglingAsset() async throws {
        let cloud = TestCloud()
        let ackFile = cloud.directory.appendingPathComponent("acks.txt")
        for round in 0..<3 {
            let process = try Self.launch([
                "--data-dir", cloud.directory.path, "--user", "crasher", "--prefix", "k\(round)",
                "--count", "0", "--asset-bytes", "4096", "--ack-file", ackFile.path,
            ])
            let target = (round + 1) * 15
            #expect(await poll(timeout: .seconds(60)) {
                ((try? String(contentsOf: ackFile, encoding: .utf8)) ?? "").split(separator: "\n").count >= target
            })
            kill(process.processIdentifier, SIGKILL)
            #expect(await BlockingThread.waitForExit(process).signal != nil)
        }
        let acknowledged = try String(contentsOf: ackFile, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(acknowledged.count >= 45)

        let container = cloud.container(user: "checker")
        let db = container.publicCloudDatabase
        let ids = acknowledged.map { Record.ID(recordName: $0) }
        for chunk in stride(from: 0, to: ids.count, by: 400).map({ Array(ids[$0..<min($0 + 400, ids.count)]) }) {
            let results = try await db.records(for: chunk, desiredKeys: ["image"])
            for id in chunk {
                let record = try #require(try results[id]?.get(), "acknowledged \(id.recordName) is missing")
                let url = try #require((record["image"] as? Asset)?.fileURL)
                #expect(FileManager.default.fileExists(atPath: url.path))
            }
        }
        let store = try await container.core.sqliteStore()
        let (integrity, digests) = try await store.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try String.fetchAll(db, sql: "SELECT DISTINCT digest FROM record_assets"))
        }
        #expect(integrity == "ok")
        await #expect(try store.invariantViolations() == [])
        #expect(digests.count >= acknowledged.count)
        for digest in digests {
            #expect(FileManager.default.fileExists(atPath: store.assetURL(forDigest: digest)?.path ?? ""), "record points at missing asset \(digest)")
        }
    }
}
