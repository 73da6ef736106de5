import Foundation
import LocalCloud

/// `{"created": NAME}`: what `zones create` prints with --json.
struct Created: Encodable {
    var created: String
}

extension Session {
    // MARK: Zones

    func listZones(database name: RecordPlace.DatabaseName) async throws {
        let zones = try await database(name).allRecordZones().map(\.zoneID.zoneName).sorted()
        json ? try Output.json(zones) : zones.forEach { Output.line($0) }
    }

    func createZone(_ name: String) async throws {
        let zone = try await container.privateCloudDatabase.save(RecordZone(zoneName: name))
        json ? try Output.json(Created(created: zone.zoneID.zoneName)) : Output.line("Created zone \(zone.zoneID.zoneName)")
    }

    func deleteZone(_ name: String) async throws {
        let id = try await container.privateCloudDatabase.deleteRecordZone(withID: RecordZone.ID(zoneName: name))
        json ? try Output.json(Deleted(deleted: id.zoneName)) : Output.line("Deleted zone \(id.zoneName) and its records")
    }
}
