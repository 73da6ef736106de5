import Foundation
import LocalCloud

/// One console invocation's view of a container: which data directory, environment and user.
///
/// Phase 1: the command tree and the schema language exist; the bodies that need the store land with it.
struct Session {
    let global: GlobalOptions
    let containerIdentifier: String

    init(_ global: GlobalOptions) throws {
        self.global = global
        containerIdentifier = global.container ?? ProcessInfo.processInfo.environment["LOCALCLOUD_CONTAINER"] ?? "iCloud.FoodPin"
    }

    private func pending() -> CloudError {
        CloudError(.internalError, "this command needs the LocalCloud store, which is not built into this localcloud yet")
    }

    func schema() throws -> Schema { throw pending() }
    func importSchema(_ imported: Schema) throws -> Schema { throw pending() }
    func updateSchema(_ change: (inout Schema) throws -> Void) throws -> Schema { throw pending() }
    func deploy() throws -> (Schema, Schema) { throw pending() }
    func resetDevelopment() throws { throw pending() }
    func status() throws { throw pending() }
    func queryRecords(type: String, filter: String?, sort: String?, descending: Bool, limit: Int?, desiredKeys: [String]?,
                      place: RecordPlace) async throws { throw pending() }
    func getRecord(name: String, place: RecordPlace) async throws { throw pending() }
    func deleteRecord(name: String, place: RecordPlace) async throws { throw pending() }
    func createRecord(type: String, name: String?, assignments: [String], assets: [String], place: RecordPlace) async throws { throw pending() }
    func exportRecords(to file: String, types: [String]?, place: RecordPlace) async throws { throw pending() }
    func importRecords(from file: String, place: RecordPlace) async throws { throw pending() }
    func listZones(database: RecordPlace.DatabaseName) async throws { throw pending() }
    func createZone(_ name: String) async throws { throw pending() }
    func deleteZone(_ name: String) async throws { throw pending() }
}
