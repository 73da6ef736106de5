import Synchronization
import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// Schema: types, fields, indexes and grants; add them with CloudKit's validation; the `.ckdb`
// text with import and export; Deploy with its diff. Every change goes through
// `Container.updateSchema`, as `localcloud schema`/`index`/`roles` do.
extension CloudServer {
    static let fieldTypeNames = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "LOCATION", "REFERENCE", "ASSET",
                                 "LIST<STRING>", "LIST<INT64>", "LIST<DOUBLE>", "LIST<TIMESTAMP>", "LIST<REFERENCE>", "LIST<ASSET>"]

    func addConsoleSchema(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "schema") { request in
            await .page(template: "schema", title: "Schema", section: "schema",
                  context: try self.schemaContext(try request.place(console), request: request))
        }
        consoleRoute(router, .get, "schema.ckdb") { request in
            let place = try request.place(console)
            let text = try await self.consoleSchema(place.container, place.environment).ckdb
            var response = Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                                    body: .init(byteBuffer: ByteBuffer(string: text)))
            if let disposition = HTTPFields.Element.Name("Content-Disposition") {
                response.headers[disposition] = "attachment; filename=\"\(place.environment.rawValue).ckdb\""
            }
            return .response(response)
        }
        // Each edit: on success back to the page with a notice; on a CloudKit error the page again with it in place.
        let edits: [(String, @Sendable (inout Schema, ConsoleForm) throws -> String)] = [
            ("schema/type", { schema, form in
                let name = form.text("type") ?? ""
                try schema.addRecordType(name)
                return "Added record type \(name)"
            }),
            ("schema/field", { schema, form in
                let (type, field) = (form.text("type") ?? "", form.text("field") ?? "")
                guard let fieldType = FieldType(name: form.text("fieldType") ?? "") else {
                    throw CloudError(.invalidArguments, "Unknown field type '\(form.text("fieldType") ?? "")'")
                }
                try schema.addField(field, type: fieldType, to: type)
                return "Added field \(type).\(field) (\(fieldType))"
            }),
            ("schema/index", { schema, form in
                let (type, field) = (form.text("type") ?? "", form.text("field") ?? "")
                guard let kind = IndexKind(rawValue: (form.text("kind") ?? "").lowercased()) else {
                    throw CloudError(.invalidArguments, "Unknown index kind: use queryable, sortable or searchable")
                }
                let on = form.text("action") != "remove"
                try schema.setIndex(kind, on, type: type, field: field)
                return "\(on ? "Added" : "Removed") \(kind.keyword) index on \(type).\(field)"
            }),
            ("schema/grant", { schema, form in
                let (type, role) = (form.text("type") ?? "", form.text("role") ?? "")
                var permissions: Permissions = []
                for (permission, keyword) in Permissions.keywords where form[keyword.lowercased()] != nil {
                    permissions.insert(permission)
                }
                guard !permissions.isEmpty else { throw CloudError(.invalidArguments, "Choose READ, CREATE or WRITE") }
                if !SecurityRole.builtIn.contains(role) { try schema.createRole(role) }
                if form.text("action") == "revoke" {
                    try schema.revoke(permissions, from: role, on: type)
                    return "Revoked \(permissions) on \(type) from \(role)"
                }
                try schema.grant(permissions, to: role, on: type)
                return "Granted \(permissions) on \(type) to \(role)"
            }),
        ]
        for (path, edit) in edits {
            consoleRoute(router, .post, path) { request in
                let place = try request.place(console)
                let container = try self.registry.container(place.container, environment: place.environment, user: nil)
                do {
                    // The edit runs on the database's queue (the store may wait on PostgreSQL); its message comes back in a box.
                    let edited = Mutex("")
                    let form = request.form
                    try await container.updateSchema { schema in
                        let note = try edit(&schema, form)
                        edited.withLock { $0 = note }
                    }
                    let message = edited.withLock { $0 }
                    try await console.audit(request.admin, path.replacingOccurrences(of: "/", with: "."),
                                            "\(place.container) \(place.environment.rawValue): \(message)")
                    return .redirect("/console/schema" + place.query([("notice", message)], keepDatabase: false))
                } catch let error as CloudError {
                    var context = try await self.schemaContext(place, request: request)
                    context["error"] = error.message
                    context["errorCode"] = ServerErrorCode(error.code).rawValue
                    context["errorForm"] = path
                    return .page(template: "schema", title: "Schema", section: "schema", context: context)
                }
            }
        }
        consoleRoute(router, .post, "schema/import") { request in
            let place = try request.place(console)
            let container = try self.registry.container(place.container, environment: place.environment, user: nil)
            do {
                let imported = try Schema(ckdb: request.form["ckdb"] ?? "")
                let schema = try await container.importSchema(imported)
                let message = "Imported \(imported.recordTypes.count) record type(s); schema version \(schema.version)"
                try await console.audit(request.admin, "schema.import", "\(place.container) \(place.environment.rawValue): \(message)")
                return .redirect("/console/schema" + place.query([("notice", message)], keepDatabase: false))
            } catch let error as CloudError {
                var context = try await self.schemaContext(place, request: request)
                context["error"] = error.message
                context["errorCode"] = ServerErrorCode(error.code).rawValue
                context["importText"] = request.form["ckdb"] ?? ""
                return .page(template: "schema", title: "Schema", section: "schema", context: context)
            }
        }
        consoleRoute(router, .get, "deploy") { request in
            let place = try request.place(console)
            return await .page(template: "deploy", title: "Deploy", section: "schema", context: try self.deployContext(place))
        }
        consoleRoute(router, .post, "deploy") { request in
            let place = try request.place(console)
            guard request.form["confirm"] != nil else { throw CloudError(.invalidArguments, "Tick the box to confirm the deploy") }
            let container = try self.registry.container(place.container, environment: .development, user: nil)
            do {
                let (before, after) = try await container.deploySchema()
                let message = after.version == before.version
                    ? "Production already matches development (schema version \(after.version))"
                    : "Deployed to production: schema version \(after.version)"
                try await console.audit(request.admin, "schema.deploy", "\(place.container): \(message)")
                var development = place
                development.environment = .development
                return .redirect("/console/deploy" + development.query([("notice", message)], keepDatabase: false))
            } catch let error as CloudError {
                var context = try await self.deployContext(place)
                context["error"] = error.message
                return .page(template: "deploy", title: "Deploy", section: "schema", context: context)
            }
        }
    }

    func schemaContext(_ place: ConsolePlace, request: ConsoleRequest) async throws -> [String: Any] {
        let schema = try await consoleSchema(place.container, place.environment)
        let types: [[String: Any]] = schema.sortedRecordTypes.map { type in
            [
                "name": type.name,
                "fields": type.fields.map { field in
                    [
                        "name": SystemField(storedName: field.name)?.consoleName ?? field.name,
                        "type": field.type.description, "system": field.isSystem,
                        "queryable": field.isQueryable, "sortable": field.isSortable, "searchable": field.isSearchable,
                    ] as [String: Any]
                },
                "grants": type.grants.sorted { $0.key < $1.key }.map { role, permissions in
                    ["role": role, "permissions": permissions.description]
                },
            ]
        }
        return [
            "place": place.hiddenFields,
            "types": types,
            // A form shown again with an error keeps the record type it was sent with.
            "typeOptions": schema.sortedRecordTypes.map { type in
                ["name": type.name, "selected": type.name == request.form["type"]] as [String: Any]
            },
            "fieldTypes": Self.fieldTypeNames,
            "roles": (Array(SecurityRole.builtIn) + schema.roles).sorted(),
            "version": schema.version,
            "ckdb": schema.ckdb,
            "editable": place.environment == .development,
            "exportURL": "/console/schema.ckdb" + place.query(keepDatabase: false),
            "deployURL": "/console/deploy" + place.query(keepDatabase: false),
        ]
    }

    func deployContext(_ place: ConsolePlace) async throws -> [String: Any] {
        let development = try await consoleSchema(place.container, .development)
        let production = try await consoleSchema(place.container, .production)
        let diff = LineDiff(old: production.ckdb, new: development.ckdb)
        var refusal: String?
        do {
            _ = try development.deploying(to: production)
        } catch let error as CloudError {
            refusal = error.message
        }
        var context: [String: Any] = [
            "place": place.hiddenFields,
            "developmentVersion": development.version,
            "productionVersion": production.version,
            "lines": diff.changes.map { change -> [String: Any] in
                switch change {
                case .kept(let line): ["text": "  " + line, "kind": "kept"]
                case .added(let line): ["text": "+ " + line, "kind": "added"]
                case .removed(let line): ["text": "- " + line, "kind": "removed"]
                }
            },
            "hasChanges": diff.hasChanges,
        ]
        if let refusal { context["refusal"] = refusal }
        return context
    }
}
