import Foundation
import LocalCloud

/// Fills an empty public database with the sample restaurants on first run.
///
/// ```swift
/// let seeder = SampleSeeder(container: container, assets: assetsURL)
/// let outcome = try await seeder.seedIfNeeded()   // .seeded(24), then .alreadySeeded forever after
/// ```
///
/// - Idempotent and cheap once seeded: a read of the schema and one query for a single record with no fields.
/// - Race-safe: every sample has a fixed record name (`sample-<slug>`) and all of them are saved
///   in one atomic request with `.ifServerRecordUnchanged`. A brand-new record whose name exists
///   fails with `serverRecordChanged`, so when two processes seed at once, the second one's
///   request fails as a whole and it reports ``Outcome/alreadySeeded``: exactly one copy.
package struct SampleSeeder: Sendable {
    package enum Outcome: Hashable, Sendable {
        /// The database already held restaurants, or another process seeded it first.
        case alreadySeeded
        /// This call saved `count` samples.
        case seeded(count: Int)
        /// No account is signed in, so nothing can be written.
        case notSignedIn
    }

    package let container: Container
    package let assets: URL
    package var database: Database { container.publicCloudDatabase }

    package init(container: Container, assets: URL) {
        self.container = container
        self.assets = assets
    }

    /// Makes sure the schema from `Assets/FoodPin.ckdb` is in place, then seeds if the database
    /// has no `Restaurant` records.
    ///
    /// - Throws: the samples file cannot be read, or the store failed for another reason than a concurrent seed.
    @discardableResult
    package func seedIfNeeded() async throws -> Outcome {
        try await ensureSchema()
        if try await hasRestaurants() { return .alreadySeeded }
        return try await seed()
    }

    /// Merges `Assets/FoodPin.ckdb` (record types, indexes, roles) into the development schema
    /// when it adds anything: queries need its indexes ("Type is not marked indexable").
    ///
    /// Cheap once done: one read of the schema and a parse of the file, no write. Two processes
    /// may both import; merging is idempotent. Production's schema only changes by deploying.
    package func ensureSchema() async throws {
        guard let text = try bundledSchema() else { return }
        try await container.importSchemaIfNeeded(ckdb: text)
    }

    /// `Assets/FoodPin.ckdb`'s text, or `nil` outside development or when the file is absent.
    private func bundledSchema() throws -> String? {
        let file = assets.appendingPathComponent("FoodPin.ckdb")
        guard container.configuration.environment == .development,
              FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// One row of the Discover query: it runs on the `(type, creationDate)` index, where an
    /// unsorted query took ~100 ms on 100,000 rows (the planner scanned by row ID).
    func hasRestaurants() async throws -> Bool {
        let (matches, _) = try await database.records(
            matching: RestaurantRecord.discoverQuery(), desiredKeys: [], resultsLimit: 1)
        return !matches.isEmpty
    }

    /// Saves every sample in one atomic request. The samples are saved last-listed first, so that
    /// with equal creation times the file's first entry is the newest.
    func seed() async throws -> Outcome {
        let samples = try SampleAssets.restaurants(in: assets)
        let directory = assets.appendingPathComponent("Restaurants", isDirectory: true)
        let records = samples.reversed().map { sample in
            let record = Record(recordType: RestaurantRecord.recordType, recordID: Record.ID(recordName: sample.recordName))
            record[RestaurantRecord.name] = sample.name
            record[RestaurantRecord.type] = sample.type
            record[RestaurantRecord.location] = sample.location
            record[RestaurantRecord.phone] = sample.phone
            record[RestaurantRecord.description] = sample.description
            record[RestaurantRecord.image] = Asset(fileURL: directory.appendingPathComponent(sample.image))
            return record
        }
        let results: [Record.ID: Result<Record, any Error>]
        do {
            results = try await database.modifyRecords(
                saving: records, deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true).saveResults
        } catch let error as CloudError where error.code == .notAuthenticated {
            return .notSignedIn
        }
        let errors = results.values.compactMap { result -> CloudError? in
            if case .failure(let error as CloudError) = result { return error }
            return nil
        }
        if errors.isEmpty { return .seeded(count: records.count) }
        if errors.contains(where: { $0.code == .serverRecordChanged }) { return .alreadySeeded }
        if errors.contains(where: { $0.code == .notAuthenticated }) { return .notSignedIn }
        throw errors.first(where: { $0.code != .batchRequestFailed }) ?? errors[0]
    }
}
