import FoodPinCore
import Foundation
import LocalCloud

/// The benchmark's container: `rows` restaurants with the sample pictures, saved 400 per
/// request through LocalCloud's public API, once; a marker file says it is complete.
struct DiscoverData {
    var directory: URL
    var configuration: Container.Configuration
    var assets: URL
    var rows: Int

    private var marker: URL { directory.appendingPathComponent("bench-rows.txt") }

    func prepare() async throws {
        let complete = "\(rows) with schema, sample names\n"
        if (try? String(contentsOf: marker, encoding: .utf8)) == complete { return }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let samples = try SampleAssets.restaurants(in: assets)
        let pictures = samples.map { assets.appendingPathComponent("Restaurants/\($0.image)") }
        let container = Container(configuration: configuration)
        let database = container.publicCloudDatabase
        // FoodPin's schema first, as a first run sets it up: queries need its indexes.
        try await SampleSeeder(container: container, assets: assets).ensureSchema()
        let batch = ModifyRecordsOperation.maximumItems
        let started = DispatchTime.now().uptimeNanoseconds
        for start in stride(from: 0, to: rows, by: batch) {
            let records = (start..<min(rows, start + batch)).map { index in
                let sample = samples[index % samples.count]
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bench-\(index)"))
                // The sample's name first, so searches for real names (`caf`, `拉麵`) find a 24th of the rows;
                // "Bench restaurant" is in every row, for the search that matches all of them.
                record["name"] = "\(sample.name) · Bench restaurant \(index)"
                record["type"] = sample.type
                record["location"] = sample.location
                record["phone"] = sample.phone
                record["description"] = sample.description
                record["image"] = Asset(fileURL: pictures[index % pictures.count])
                return record
            }
            let results = try await database.modifyRecords(saving: records, deleting: [], savePolicy: .allKeys, atomically: true).saveResults
            if let failure = results.values.first(where: { if case .failure = $0 { true } else { false } }), case .failure(let error) = failure {
                throw error
            }
            if (start / batch) % 25 == 0 {
                FileHandle.standardError.write(Data("  generated \(start + records.count) of \(rows)\r".utf8))
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        FileHandle.standardError.write(Data(String(format: "\n  generated %d restaurants in %.1f s\n", rows, seconds).utf8))
        try complete.write(to: marker, atomically: true, encoding: .utf8)
    }
}
