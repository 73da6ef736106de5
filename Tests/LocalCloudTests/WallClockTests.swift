import Foundation
import Synchronization
import Testing
@testable import LocalCloud

/// The embedded store stamps records and zones with the injected clock, so tests of dates move
/// time instead of sleeping.
@Suite struct WallClockTests {
    @Test func recordsAreStampedWithTheInjectedClock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lc-clock-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = Mutex(Date(timeIntervalSince1970: 1_767_225_600))
        var configuration = Container.Configuration(containerIdentifier: "iCloud.Clock", dataDirectory: directory, user: "alice")
        configuration.clock = WallClock { time.withLock { $0 } }
        let database = Container(configuration: configuration).publicCloudDatabase
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r"))
        record["name"] = "Cafe Deadend"
        let saved = try await database.save(record)
        #expect(saved.creationDate == Date(timeIntervalSince1970: 1_767_225_600))
        time.withLock { $0 += 3600 }   // an hour later, at once
        saved["name"] = "Cafe Loftus"
        let again = try await database.save(saved)
        #expect(again.creationDate == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(again.modificationDate == Date(timeIntervalSince1970: 1_767_229_200))
    }
}
