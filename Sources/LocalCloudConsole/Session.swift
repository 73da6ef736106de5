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

    init(_ global: GlobalOptions) async throws {
        self.global = global
        container = Container(configuration: try await global.configuration())
    }

    func database(_ name: RecordPlace.DatabaseName) -> Database {
        name == .public ? container.publicCloudDatabase : container.privateCloudDatabase
    }

    func zoneID(_ place: RecordPlace) -> RecordZone.ID {
        place.zone.map { RecordZone.ID(zoneName: $0) } ?? .default
    }

    // MARK: Schema

    func schema() async throws -> Schema { try await container.schema() }
    func importSchema(_ imported: Schema) async throws -> Schema { try await container.importSchema(imported) }
    func updateSchema(_ change: @escaping @Sendable (inout Schema) throws -> Void) async throws -> Schema { try await container.updateSchema(change) }
    func deploy() async throws -> (Schema, Schema) { try await container.deploySchema() }
    func resetDevelopment() async throws { try await container.resetDevelopment() }
}
