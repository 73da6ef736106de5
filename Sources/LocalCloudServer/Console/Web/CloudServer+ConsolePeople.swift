import Crypto
import Foundation
import Hummingbird
import LocalCloud

// Zones and subscriptions per database and user; API tokens, server-to-server keys and users.
// Tokens, keys and accounts go through the same IdentityStore as `localcloud tokens`/`keys`/`users`.
extension CloudServer {
    func addConsoleZones(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "zones") { request in
            let place = try request.place(console)
            var context: [String: Any] = [
                "place": place.hiddenFields,
                "databases": ["public", "private", "shared"].map { ["name": $0, "selected": $0 == place.databaseName] as [String: Any] },
                "users": try await self.state.identity.users(container: place.container).map { user in
                    ["name": user.name, "selected": user.name == place.actingAs] as [String: Any]
                },
            ]
            do {
                let database = try await self.consoleDataContainer(place).database(with: place.scope)
                let zones = try await database.allRecordZones()
                context["zones"] = zones.map { zone in
                    var browse = place
                    browse.zone = zone.zoneID.zoneName
                    return ["name": zone.zoneID.zoneName, "owner": zone.zoneID.ownerName, "url": "/console/records" + browse.query(),
                            "deletable": zone.zoneID.zoneName != RecordZone.ID.default.zoneName] as [String: Any]
                }
                if place.actingAs != nil {
                    let subscriptions = try await database.allSubscriptions()
                    context["subscriptions"] = subscriptions.map { subscription in
                        var entry: [String: Any] = ["id": subscription.subscriptionID, "type": "\(subscription.subscriptionType)"]
                        if let query = subscription as? QuerySubscription { entry["recordType"] = query.recordType }
                        if let zone = subscription as? RecordZoneSubscription { entry["zone"] = zone.zoneID.zoneName }
                        return entry
                    }
                    context["showSubscriptions"] = true
                }
            } catch let error as CloudError {
                context["error"] = error.message
            }
            return .page(template: "zones", title: "Zones & subscriptions", section: "zones", context: context)
        }
        // Changes go through `Database` as `zones/modify` and `subscriptions/modify` do, as the user acted as.
        consoleRoute(router, .post, "zones/create") { request in
            let place = try request.place(console)
            let id = try Self.consoleZoneID(request.form)
            let database = try await self.consoleDataContainer(place).database(with: place.scope)
            _ = try await database.save(RecordZone(zoneID: id))
            try await console.audit(request.admin, "zones.create", "\(Self.auditPlace(place)): zone \(id.zoneName)")
            return .redirect("/console/zones" + place.query([("notice", "Created zone \(id.zoneName)")]))
        }
        consoleRoute(router, .post, "zones/delete") { request in
            let place = try request.place(console)
            let id = try Self.consoleZoneID(request.form)
            let database = try await self.consoleDataContainer(place).database(with: place.scope)
            _ = try await database.deleteRecordZone(withID: id)
            try await console.audit(request.admin, "zones.delete", "\(Self.auditPlace(place)): zone \(id.zoneName) and its records")
            var back = place
            if back.zone == id.zoneName { back.zone = RecordZone.ID.default.zoneName }
            return .redirect("/console/zones" + back.query([("notice", "Deleted zone \(id.zoneName)")]))
        }
        consoleRoute(router, .post, "subscriptions/delete") { request in
            let place = try request.place(console)
            guard let id = request.form.text("subscription"), id.utf8.count <= 255 else {
                throw CloudError(.invalidArguments, "Which subscription? (subscription)")
            }
            let database = try await self.consoleDataContainer(place).database(with: place.scope)
            try await database.deleteSubscription(withID: id)
            try await console.audit(request.admin, "subscriptions.delete", "\(Self.auditPlace(place)): subscription \(id)")
            return .redirect("/console/zones" + place.query([("notice", "Deleted subscription \(id)")]))
        }
    }

    /// The form's `zoneName`, read by the same parser as `zones/modify`.
    static func consoleZoneID(_ form: ConsoleForm) throws -> RecordZone.ID {
        guard let name = form.text("zoneName") else { throw CloudError(.invalidArguments, "Name the zone (zoneName)") }
        return try zoneIDs([.object(["zoneName": .string(name)])], key: "zones")[0]
    }

    func addConsolePeople(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "people") { request in
            .page(template: "people", title: "Tokens & users", section: "people",
                  context: try await self.peopleContext(try request.place(console)))
        }
        consoleRoute(router, .post, "tokens/create") { request in
            let place = try request.place(console)
            let name = request.form.text("name")
            let token = try await self.state.identity.createAPIToken(container: place.container, environment: place.environment, name: name,
                                                                     now: console.clock.now)
            try await console.audit(request.admin, "tokens.create",
                                    "\(place.container) \(place.environment.rawValue): API token \(String(Secret.digest(token).prefix(12))) \(name ?? "")")
            // The secret is in this page only: never in an address, a log or the audit log.
            var context = try await self.peopleContext(place)
            context["secret"] = token
            context["secretLabel"] = "The new API token (shown once; only its digest is kept):"
            return .page(template: "people", title: "Tokens & users", section: "people", context: context)
        }
        consoleRoute(router, .post, "tokens/revoke") { request in
            let place = try request.place(console)
            let revoked = try await self.state.identity.revokeAPIToken(request.form.text("id") ?? "", container: place.container, now: console.clock.now)
            try await console.audit(request.admin, "tokens.revoke", "\(place.container): API token \(revoked.id)")
            return .redirect("/console/people" + place.query([("notice", "Revoked API token \(revoked.id)")], keepDatabase: false))
        }
        consoleRoute(router, .post, "keys/create") { request in
            let place = try request.place(console)
            // A new P-256 key pair: the server keeps the public half; the private key is shown once.
            let privateKey = P256.Signing.PrivateKey()
            let key = try await self.state.identity.addServerKey(publicKeyPEM: privateKey.publicKey.pemRepresentation,
                                                                 container: place.container, environment: place.environment,
                                                                 name: request.form.text("name"), now: console.clock.now)
            try await console.audit(request.admin, "keys.create", "\(place.container) \(place.environment.rawValue): key \(key.id)")
            var context = try await self.peopleContext(place)
            context["secret"] = privateKey.pemRepresentation
            context["secretLabel"] = "The private key of server-to-server key \(key.id) (shown once; sign requests with it):"
            return .page(template: "people", title: "Tokens & users", section: "people", context: context)
        }
        consoleRoute(router, .post, "keys/revoke") { request in
            let place = try request.place(console)
            let id = request.form.text("id") ?? ""
            guard try await self.state.identity.revokeServerKey(id: id, container: place.container, at: console.clock.now) else {
                throw CloudError(.unknownItem, "No live server-to-server key \(id.prefix(64))")
            }
            try await console.audit(request.admin, "keys.revoke", "\(place.container): key \(id)")
            return .redirect("/console/people" + place.query([("notice", "Revoked key \(id.prefix(12))")], keepDatabase: false))
        }
        consoleRoute(router, .post, "users/add") { request in
            let place = try request.place(console)
            let name = request.form.text("user") ?? ""
            try await self.state.identity.addUser(name, password: request.form["password"] ?? "", container: place.container,
                                                  hasher: console.hasher, now: console.clock.now)
            try await console.audit(request.admin, "users.add", "\(place.container): \(name)")
            return .redirect("/console/people" + place.query([("notice", "Added user \(name)")], keepDatabase: false))
        }
        consoleRoute(router, .post, "users/password") { request in
            let place = try request.place(console)
            let name = request.form.text("user") ?? ""
            try await self.state.identity.resetPassword(user: name, password: request.form["password"] ?? "",
                                                        container: place.container, hasher: console.hasher, now: console.clock.now)
            try await console.audit(request.admin, "users.password", "\(place.container): \(name) (signed out everywhere)")
            return .redirect("/console/people" + place.query([("notice", "New password for \(name); signed out everywhere")],
                                                             keepDatabase: false))
        }
        consoleRoute(router, .post, "users/disable") { request in
            let place = try request.place(console)
            let name = request.form.text("user") ?? ""
            let disable = request.form.text("action") != "enable"
            try await self.state.identity.setUserDisabled(disable, user: name, container: place.container, now: console.clock.now)
            try await console.audit(request.admin, disable ? "users.disable" : "users.enable", "\(place.container): \(name)")
            return .redirect("/console/people" + place.query([("notice", "\(disable ? "Disabled" : "Enabled") \(name)")],
                                                             keepDatabase: false))
        }
        consoleRoute(router, .post, "users/signout") { request in
            let place = try request.place(console)
            let name = request.form.text("user") ?? ""
            let count = try await self.state.identity.signOut(user: name, container: place.container, now: console.clock.now)
            try await console.audit(request.admin, "users.signout", "\(place.container): \(name) (\(count) token(s))")
            return .redirect("/console/people" + place.query([("notice", "Signed \(name) out everywhere: \(count) token(s) revoked")],
                                                             keepDatabase: false))
        }
    }

    func peopleContext(_ place: ConsolePlace) async throws -> [String: Any] {
        let identity = state.identity
        let tokens = try await identity.apiTokens(container: place.container)
        let keys = try await identity.serverKeys(container: place.container)
        let users = try await identity.users(container: place.container)
        return [
            "place": place.hiddenFields,
            "tokens": tokens.reversed().map { token in
                ["id": token.id, "environment": token.environment.rawValue, "name": token.name ?? "",
                 "created": Self.consoleDate(token.created), "revoked": token.revoked.map(Self.consoleDate) ?? "",
                 "live": token.revoked == nil] as [String: Any]
            },
            "keys": keys.map { key in
                ["id": key.id, "shortID": String(key.id.prefix(12)), "environment": key.environment.rawValue, "name": key.name ?? "",
                 "created": Self.consoleDate(key.created), "revoked": key.revoked.map(Self.consoleDate) ?? "",
                 "live": key.revoked == nil] as [String: Any]
            },
            "users": users.map { user in
                var browse = place
                browse.actingAs = user.name
                browse.scope = .private
                return ["name": user.name, "recordName": user.userRecordName, "created": Self.consoleDate(user.created),
                        "actURL": "/console/records" + browse.query(), "disabled": user.disabled] as [String: Any]
            },
        ]
    }
}
