import Foundation
import LocalCloud

/// One console invocation's container: the data directory, environment and user from the
/// global options (falling back to the LOCALCLOUD_* environment variables). Each command's work
/// is in its own `Session+<Command>.swift`.
struct Session {
    let global: GlobalOptions
    let container: Container

    var containerIdentifier: String { container.containerIdentifier }
    var json: Bool { global.json }

    init(_ global: GlobalOptions) throws {
        self.global = global
        container = Container(configuration: try global.configuration())
    }

    func database(_ name: RecordPlace.DatabaseName) -> Database {
        name == .public ? container.publicCloudDatabase : container.privateCloudDatabase
    }

    func zoneID(_ place: RecordPlace) -> RecordZone.ID {
        place.zone.map { RecordZone.ID(zoneName: $0) } ?? .default
    }

    // MARK: Schema

    func schema() throws -> Schema { try container.schema() }
    func importSchema(_ imported: Schema) throws -> Schema { try container.importSchema(imported) }
    func updateSchema(_ change: (inout Schema) throws -> Void) throws -> Schema { try container.updateSchema(change) }
    func deploy() throws -> (Schema, Schema) { try container.deploySchema() }
    func resetDevelopment() throws { try container.resetDevelopment() }
}
