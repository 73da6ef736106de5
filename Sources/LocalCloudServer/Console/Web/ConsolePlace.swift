import Foundation
import LocalCloud

/// Where a console page looks: container, environment, database, zone and the user it acts as,
/// read from the address (`c`, `env`, `db`, `zone`, `as`) and carried by every link.
struct ConsolePlace: Sendable {
    var container: String
    var environment: Container.Environment
    var scope: Database.Scope
    var zone: String
    /// The app user the console acts as; `nil` is the developer (the public database only).
    var actingAs: String?

    init(_ form: ConsoleForm, defaultContainer: String) throws {
        container = form.text("c") ?? defaultContainer
        try StoreRegistry.validate(containerIdentifier: container)
        environment = try CloudServer.environment(form.text("env") ?? "development")
        switch form.text("db") ?? "public" {
        case "public": scope = .public
        case "private": scope = .private
        case "shared": scope = .shared
        default: throw CloudError(.invalidArguments, "Unknown database: use public, private or shared")
        }
        zone = form.text("zone") ?? RecordZone.ID.default.zoneName
        actingAs = form.text("as")
        if let actingAs { try SQLiteIdentityStore.validate(userName: actingAs) }
    }

    var zoneID: RecordZone.ID { RecordZone.ID(zoneName: zone) }

    var databaseName: String {
        switch scope {
        case .public: "public"
        case .private: "private"
        case .shared: "shared"
        }
    }

    /// The query string that keeps this place, plus `extra`.
    func query(_ extra: [(String, String?)] = [], keepDatabase: Bool = true) -> String {
        var pairs: [(String, String?)] = [("c", container), ("env", environment.rawValue)]
        if keepDatabase {
            pairs += [("db", databaseName), ("zone", zone == RecordZone.ID.default.zoneName ? nil : zone)]
        }
        pairs.append(("as", actingAs))
        return ConsoleForm.query(pairs + extra)
    }

    /// Hidden form fields that keep this place, for POSTed forms.
    var hiddenFields: [[String: String]] {
        var fields = [["name": "c", "value": container], ["name": "env", "value": environment.rawValue],
                      ["name": "db", "value": databaseName], ["name": "zone", "value": zone]]
        if let actingAs { fields.append(["name": "as", "value": actingAs]) }
        return fields
    }
}
