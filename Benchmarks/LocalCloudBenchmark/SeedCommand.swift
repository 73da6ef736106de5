// `localcloud-bench seed`: fills a container with restaurants through the public API, for the
// server and search benchmarks that need a large store.
//
//   localcloud-bench seed --data-dir DIR [--records 100000] [--container iCloud.FoodPin] [--schema Assets/FoodPin.ckdb]
//   localcloud-bench seed --database postgresql://USER@HOST:PORT/DB [--data-dir DIR] [--records N] …
//
// Records are saved in `modifyRecords` batches of 400 (CloudKit's limit) by user `bench`, with the
// same fields as the other measures, so every page of the Discover query is full.
import Foundation
import GRDB
import LocalCloud
import LocalCloudPostgres
import LocalCloudServerPostgres

enum SeedCommand {
    static func run(_ arguments: [String]) async throws {
        var records = 100_000
        var containerID = "iCloud.FoodPin"
        var schemaPath = "Assets/FoodPin.ckdb"
        var dataDirectory: URL?
        var database: String?
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--records": records = Int(value) ?? records
            case "--container": containerID = value
            case "--schema": schemaPath = value
            case "--data-dir": dataDirectory = URL(fileURLWithPath: value, isDirectory: true)
            case "--database": database = value
            default: usage()
            }
        }
        guard let dataDirectory = dataDirectory ?? database.map({ _ in
            URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-seed-\(UUID().uuidString)", isDirectory: true)
        }) else { usage() }
        var configuration = Container.Configuration(containerIdentifier: containerID, dataDirectory: dataDirectory, user: "bench")
        if let database { configuration.storeOpener = .postgres(try PostgresURL(database)) }
        let container = Container(configuration: configuration)
        // Only a development schema that lacks the type is imported: a store seeded before keeps its own.
        if await (try? container.schema().recordTypes["Restaurant"]) == nil {
            _ = try await container.importSchema(LocalCloud.Schema(ckdb: String(contentsOfFile: schemaPath, encoding: .utf8)))
        }
        let start = ContinuousClock.now
        var saved = 0
        while saved < records {
            let batch = (saved..<min(records, saved + 400)).map(BenchRestaurant.record)
            _ = try await container.publicCloudDatabase.modifyRecords(saving: batch, deleting: [])
            saved += batch.count
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        if database == nil {
            // The benchmarks measure a store in use, not one just filled. The seed's 250 batches leave
            // the full-text index in many segments, and a server's first saves then merge them:
            // one stall of 0.7–0.9 s for every save in flight at 100,000 restaurants, which was the
            // p99 of server.sh's saves. And the process exits with its store open, which leaves the
            // seed in the WAL (13 MB for 20,000) for the server's first commit to copy back.
            let file = dataDirectory.appendingPathComponent(containerID).appendingPathComponent("development.sqlite")
            try await DatabaseQueue(path: file.path).writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO records_fts(records_fts) VALUES ('optimize')")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
        print("seeded \(saved) restaurants into \(containerID) in \(String(format: "%.1f", seconds)) s")
        exit(0)
    }

    private static func usage() -> Never {
        print("usage: localcloud-bench seed (--data-dir DIR | --database URL) [--records N] [--container ID] [--schema FILE.ckdb]")
        exit(2)
    }
}
