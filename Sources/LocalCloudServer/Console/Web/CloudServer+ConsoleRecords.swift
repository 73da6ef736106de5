import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// Records: a query builder over the public, private or shared database (as the developer or as a
// chosen user), paging by continuation marker, a record's page, create, edit with conflicts, delete.
// Queries and saves go through `Database` with the same parsers as `records/query` and `records/modify`.
extension CloudServer {
    static let consoleComparators = ["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN",
                                     "GREATER_THAN_OR_EQUALS", "BEGINS_WITH", "CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS"]
    static let consolePageSize = 20

    /// The container the console reads and writes records through: as the user it acts as, else as
    /// the developer, who reaches the public database only (as with a server-to-server key).
    func consoleDataContainer(_ place: ConsolePlace) async throws -> Container {
        if let user = place.actingAs {
            guard try await state.identity.user(named: user, container: place.container) != nil else {
                throw CloudError(.unknownItem, "No user '\(user)' in \(place.container)")
            }
            return try registry.container(place.container, environment: place.environment, user: user)
        }
        guard place.scope == .public else {
            throw CloudError(.notAuthenticated, "The \(place.databaseName) database belongs to a user: choose a user to act as")
        }
        return try registry.container(place.container, environment: place.environment, user: RequestIdentity.developerUserName)
    }

    func addConsoleRecords(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "records") { request in
            .page(template: "records", title: "Records", section: "records", context: try await self.recordsContext(request, console))
        }
        consoleRoute(router, .get, "record") { request in
            let place = try request.place(console)
            guard let name = request.query.text("name") else { throw CloudError(.invalidArguments, "Which record? (name)") }
            let database = try await self.consoleDataContainer(place).database(with: place.scope)
            let record = try await database.record(for: Record.ID(recordName: name, zoneID: place.zoneID))
            return .page(template: "record", title: name, section: "records",
                         context: try await self.recordContext(record, place: place, console: console))
        }
        consoleRoute(router, .get, "record/new") { request in
            let place = try request.place(console)
            guard let type = request.query.text("type") else { throw CloudError(.invalidArguments, "Choose a record type") }
            let schema = try await self.consoleSchema(place.container, place.environment)
            guard let typeSchema = schema.recordTypes[type] else { throw CloudError(.unknownItem, "Unknown record type '\(type)'") }
            return .page(template: "record", title: "New \(type)", section: "records", context: [
                "isNew": true, "recordType": type, "place": place.hiddenFields,
                "fields": typeSchema.userFields.filter { ConsoleValue.isEditable($0.type) }.map { field in
                    Self.fieldEntry(field.name, type: field.type, value: nil, edit: nil)
                },
                "backURL": "/console/records" + place.query([("type", type)]),
            ])
        }
        consoleRoute(router, .post, "record/save", bodyLimit: configuration.maxAssetBytes + Self.maxConsoleFormBytes) { request in try await self.saveRecord(request, console) }
        consoleRoute(router, .post, "record/delete") { request in
            let place = try request.place(console)
            guard let name = request.form.text("name") else { throw CloudError(.invalidArguments, "Which record? (name)") }
            let database = try await self.consoleDataContainer(place).database(with: place.scope)
            let id = Record.ID(recordName: name, zoneID: place.zoneID)
            let results = try await database.apply([.delete(id, changeTag: request.form.text("tag"))], atomically: true)
            if case .failed(_, let error)? = results.first { throw error }
            try await console.audit(request.admin, "records.delete", "\(Self.auditPlace(place)) \(name)")
            return .redirect("/console/records" + place.query([("type", request.form.text("type")), ("notice", "Deleted \(name)")]))
        }
        consoleRoute(router, .get, "asset") { request in
            let place = try request.place(console)
            guard let name = request.query.text("name"), let field = request.query.text("field") else {
                throw CloudError(.invalidArguments, "Which record and field?")
            }
            let container = try await self.consoleDataContainer(place)
            let record = try await container.database(with: place.scope).record(for: Record.ID(recordName: name, zoneID: place.zoneID))
            guard case .asset(let asset)? = record.snapshot.fields[field] else {
                throw CloudError(.unknownItem, "Field '\(field)' of \(name) is not an asset")
            }
            var url = asset.fileURL
            if let digest = asset.contentDigest, let stored = await container.assetFile(forDigest: digest) { url = stored }
            guard let url, let data = try? Data(contentsOf: url) else { throw CloudError(.unknownItem, "The asset's file is missing") }
            // Only pictures are shown; anything else would be a download, which the preview never offers.
            guard let type = Self.imageType(data) else { throw CloudError(.invalidArguments, "The asset is not a JPEG, PNG, GIF or WebP image") }
            return .response(Response(status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=60"],
                                      body: .init(byteBuffer: ByteBuffer(bytes: data))))
        }
    }

    func recordsContext(_ request: ConsoleRequest, _ console: WebConsole) async throws -> [String: Any] {
        let place = try request.place(console)
        let query = request.query
        let schema = try await consoleSchema(place.container, place.environment)
        let type = query.text("type") ?? schema.sortedRecordTypes.first?.name
        var context: [String: Any] = [
            "place": place.hiddenFields,
            "databases": ["public", "private", "shared"].map { ["name": $0, "selected": $0 == place.databaseName] as [String: Any] },
            "zone": place.zone,
            "types": schema.sortedRecordTypes.map { ["name": $0.name, "selected": $0.name == type] as [String: Any] },
            "comparatorOptions": ConsoleRecordTable.options(Self.consoleComparators, selected: query.text("cmp") ?? "EQUALS"),
            "value": query["value"] ?? "",
            "descending": query.text("order") == "desc",
            "users": try await state.identity.users(container: place.container).map { user in
                ["name": user.name, "selected": user.name == place.actingAs] as [String: Any]
            },
        ]
        guard let type, let typeSchema = schema.recordTypes[type] else {
            context["empty"] = "No record types yet: add one on the Schema page"
            return context
        }
        let fieldNames = typeSchema.fields.map { SystemField(storedName: $0.name)?.consoleName ?? $0.name }
        context["filterOptions"] = ConsoleRecordTable.options([""] + fieldNames, selected: query.text("field") ?? "")
        context["sortOptions"] = ConsoleRecordTable.options([""] + fieldNames, selected: query.text("sort") ?? "")
        context["newURL"] = "/console/record/new" + place.query([("type", type)])
        let limit = min(max(Int(query.text("limit") ?? "") ?? Self.consolePageSize, 1), Self.maximumResultsLimit)
        do {
            let database = try await consoleDataContainer(place).database(with: place.scope)
            let page: (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?)
            // The table shows four fields: only they are read (as the API's `desiredKeys` does).
            let shown = typeSchema.userFields.prefix(4).map(\.name)
            if let marker = query.text("marker") {
                guard let cursor = QueryCursorCoding.decode(marker) else {
                    throw CloudError(.invalidArguments, "continuationMarker is not one this server issued")
                }
                page = try await database.records(continuingMatchFrom: cursor, desiredKeys: shown, resultsLimit: limit)
            } else {
                let json = try queryJSON(type: type, typeSchema: typeSchema, query: query)
                page = try await database.records(matching: try Query(webServices: json), inZoneWith: place.zoneID,
                                                  desiredKeys: shown, resultsLimit: limit)
            }
            context["columns"] = shown
            // One query string for every row's link, the record name added to it.
            let recordURL = "/console/record" + place.query() + "&name="
            context["rowsHTML"] = ConsoleRecordTable.rows(page.matchResults.compactMap { id, result in
                guard case .success(let record) = result else { return nil }
                let fields = record.snapshot.fields
                return ConsoleRecordTable.Row(name: id.recordName, url: recordURL + ConsoleForm.encode(id.recordName),
                                              cells: shown.map { fields[$0].map(ConsoleValue.text) ?? "" },
                                              modified: record.modificationDate.map(Self.consoleDate) ?? "")
            })
            context["hasRows"] = !page.matchResults.isEmpty
            if let cursor = page.queryCursor {
                var next = query.fields.map { ($0.key, Optional($0.value)) }.filter { $0.0 != "marker" && $0.0 != "notice" }
                next.append(("marker", try QueryCursorCoding.encode(cursor)))
                context["nextURL"] = "/console/records" + ConsoleForm.query(next.sorted { $0.0 < $1.0 })
            }
            if query.text("marker") != nil {
                context["firstURL"] = "/console/records" + ConsoleForm.query(query.fields.filter { $0.key != "marker" }
                    .map { ($0.key, Optional($0.value)) }.sorted { $0.0 < $1.0 })
            }
        } catch let error as CloudError {
            context["error"] = error.message
            context["errorCode"] = ServerErrorCode(error.code).rawValue
        }
        return context
    }

    /// The builder's choices as the Web Services query JSON, so `Query(webServices:)` applies the API's rules and errors.
    func queryJSON(type: String, typeSchema: RecordTypeSchema, query: ConsoleForm) throws -> JSONValue {
        var json: [String: JSONValue] = ["recordType": .string(type)]
        if let field = query.text("field") {
            let comparator = query.text("cmp") ?? "EQUALS"
            let text = query["value"] ?? ""
            var filter: [String: JSONValue] = ["comparator": .string(comparator)]
            let stored = SystemField(anyName: field)?.rawValue ?? field
            if comparator.hasSuffix("_TOKENS") {
                filter["fieldValue"] = .object(["value": .string(text)])
            } else if let schemaField = typeSchema.field(named: stored), !schemaField.isSystem, ConsoleValue.isEditable(schemaField.type),
                      schemaField.type.scalar != .asset {
                filter["fieldName"] = .string(field)
                filter["fieldValue"] = try ConsoleValue.json(text, type: schemaField.type.scalar, field: field)
            } else {
                filter["fieldName"] = .string(field)
                filter["fieldValue"] = .object(["value": Int64(text).map(JSONValue.int) ?? .string(text)])
            }
            json["filterBy"] = .array([.object(filter)])
        }
        if let sort = query.text("sort") {
            json["sortBy"] = .array([.object(["fieldName": .string(sort), "ascending": .bool(query.text("order") != "desc")])])
        }
        return .object(json)
    }

    func recordContext(_ record: Record, place: ConsolePlace, console: WebConsole, edits: [String: String] = [:]) async throws -> [String: Any] {
        let schema = try await consoleSchema(place.container, place.environment)
        let state = record.snapshot
        let typeSchema = schema.recordTypes[record.recordType]
        var names = Set(state.fields.keys)
        for field in typeSchema?.userFields ?? [] where ConsoleValue.isEditable(field.type) { names.insert(field.name) }
        let fields: [[String: Any]] = names.sorted().map { name in
            let value = state.fields[name]
            var entry = Self.fieldEntry(name, type: typeSchema?.field(named: name)?.type, value: value, edit: edits[name])
            if case .asset? = value {
                entry["previewURL"] = "/console/asset" + place.query([("name", record.recordID.recordName), ("field", name)])
            }
            return entry
        }
        return [
            "place": place.hiddenFields,
            "name": record.recordID.recordName,
            "recordType": record.recordType,
            "zone": record.recordID.zoneID.zoneName,
            "fields": fields,
            "creator": state.creatorUserRecordID?.recordName ?? "",
            "modifier": state.lastModifiedUserRecordID?.recordName ?? "",
            "created": state.creationDate.map(Self.consoleDate) ?? "",
            "modified": state.modificationDate.map(Self.consoleDate) ?? "",
            "changeTag": state.recordChangeTag ?? "",
            "backURL": "/console/records" + place.query([("type", record.recordType)]),
        ]
    }

    /// One row of the record editor: the value as text, and how it is edited (a text field, lines
    /// for a list, latitude and longitude for a location, a file for an asset, or not at all).
    static func fieldEntry(_ name: String, type: FieldType?, value: FieldValue?, edit: String?) -> [String: Any] {
        var entry: [String: Any] = [
            "name": name, "type": type?.description ?? "",
            "value": edit ?? value.map(ConsoleValue.editText) ?? "",
            "shown": value.map(ConsoleValue.text) ?? "",
            "editable": type.map(ConsoleValue.isEditable) ?? false,
            "multiline": type?.isList ?? false,
        ]
        switch type {
        case .location?:
            entry["isLocation"] = true
            let (latitude, longitude) = ConsoleValue.coordinates(value)
            var shown = (latitude, longitude)
            if let edit {
                let parts = edit.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                shown = (parts.first ?? "", parts.count > 1 ? parts[1] : "")
            }
            entry["latitude"] = shown.0
            entry["longitude"] = shown.1
        case .asset?:
            entry["isAsset"] = true
        case .bytes?:
            entry["isBytes"] = true
        default:
            entry["isText"] = !(type?.isList ?? false)
        }
        return entry
    }

    /// POST /console/record/save: `create` or `update` (with the change tag the page was opened with).
    /// A record changed meanwhile is a conflict page showing both versions; nothing is overwritten.
    func saveRecord(_ request: ConsoleRequest, _ console: WebConsole) async throws -> ConsoleReply {
        let place = try request.place(console)
        let form = request.form
        guard let type = form.text("recordType") else { throw CloudError(.invalidArguments, "Which record type?") }
        let isNew = form.text("mode") == "create"
        let schema = try await consoleSchema(place.container, place.environment)
        var fields: [String: JSONValue] = [:]
        // Only what the admin changed is saved (an update leaves other fields as they are).
        var edits: [String: String] = [:]
        var texts = form.prefixed("f.")
        // A location is two inputs, latitude and longitude; both empty is no value.
        for (name, latitude) in form.prefixed("lat.") {
            let longitude = form["lon." + name] ?? ""
            let blank = latitude.trimmingCharacters(in: .whitespaces).isEmpty && longitude.trimmingCharacters(in: .whitespaces).isEmpty
            texts[name] = blank ? "" : "\(latitude), \(longitude)"
        }
        for (name, text) in texts {
            guard let fieldType = schema.recordTypes[type]?.field(named: name)?.type else {
                throw CloudError(.invalidArguments, "Type '\(type)' has no field '\(name)'")
            }
            if isNew, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
            if !isNew, let original = form["o." + name], original == text { continue }
            edits[name] = text
            fields[name] = try ConsoleValue.json(text, type: fieldType, field: name)
        }
        let container = try await consoleDataContainer(place)
        var receipts: [String: String] = [:]
        // An asset already uploaded (the conflict page's "save my edits" carries its receipt).
        for (field, digest) in form.prefixed("receipt.") {
            guard schema.recordTypes[type]?.field(named: field)?.type == .asset else {
                throw CloudError(.invalidArguments, "Field '\(field)' of \(type) is not an asset")
            }
            receipts[field] = digest
            edits[field] = "uploaded file \(digest.prefix(12))"
            fields[field] = .object(["value": .object(["receipt": .string(digest)]), "type": .string("ASSETID")])
        }
        // An asset: the uploaded file enters the asset store as `assets/upload` stores one, and the
        // record names it by its receipt, which the API's decoder checks.
        for (name, file) in request.files.sorted(by: { $0.key < $1.key }) where name.hasPrefix("file.") && !file.bytes.isEmpty {
            let field = String(name.dropFirst("file.".count))
            guard schema.recordTypes[type]?.field(named: field)?.type == .asset else {
                throw CloudError(.invalidArguments, "Field '\(field)' of \(type) is not an asset")
            }
            guard file.bytes.count <= configuration.maxAssetBytes else {
                throw CloudError(.quotaExceeded, "The file for '\(field)' is larger than \(configuration.maxAssetBytes) bytes")
            }
            let receipt = try await Self.importConsoleUpload(file.bytes, into: container)
            receipts[field] = receipt.digest
            edits[field] = "\(file.filename.prefix(120)) (\(file.bytes.count) bytes)"
            fields[field] = .object(["value": .object(["receipt": .string(receipt.digest), "size": .int(receipt.size)]),
                                     "type": .string("ASSETID")])
        }
        var json: [String: JSONValue] = ["recordType": .string(type), "fields": .object(fields)]
        if let name = form.text("name") { json["recordName"] = .string(name) }
        if let tag = form.text("tag") { json["recordChangeTag"] = .string(tag) }
        let held = await Self.heldReceipts(in: .object(json), container: container)
        let mapping = AssetWireMapping(downloadURL: { _ in nil }, exists: { held.contains($0) })
        let record = try Record(webServices: .object(json), zoneID: place.zoneID, assets: mapping)
        let database = container.database(with: place.scope)
        let results = try await database.apply([isNew ? .create(record) : .update(record)], atomically: true)
        switch results.first {
        case .saved(let saved)?:
            let verb = isNew ? "Created" : "Saved"
            try await console.audit(request.admin, isNew ? "records.create" : "records.update",
                                    "\(Self.auditPlace(place)) \(saved.recordID.recordName) (\(fields.keys.sorted().joined(separator: ", ")))")
            return .redirect("/console/record" + place.query([("name", saved.recordID.recordName), ("notice", "\(verb) \(saved.recordID.recordName)")]))
        case .failed(_, let error)? where error.code == .serverRecordChanged && !isNew:
            // A conflict: show the server's version beside the edits, and let the admin choose.
            guard let server = error.serverRecord else { throw error }
            var context = try await recordContext(server, place: place, console: console)
            let serverFields = server.snapshot.fields
            context["conflicts"] = edits.keys.sorted().map { name in
                ["name": name, "mine": edits[name] ?? "", "theirs": serverFields[name].map(ConsoleValue.text) ?? "",
                 "original": form["o." + name] ?? ""]
            }
            context["reloadURL"] = "/console/record" + place.query([("name", server.recordID.recordName)])
            context["mine"] = edits.keys.sorted().map { name in
                receipts[name].map { ["input": "receipt." + name, "value": $0] } ?? ["input": "f." + name, "value": edits[name] ?? ""]
            }
            context["error"] = "Conflict: this record was changed by someone else since you opened it. Nothing was saved."
            return .page(template: "conflict", title: "Conflict", section: "records", context: context)
        case .failed(_, let error)?:
            throw error
        default:
            throw CloudError(.internalError, "The save returned no result")
        }
    }

    /// Stores an uploaded file in the container's asset store, as `upload/1/…` does.
    static func importConsoleUpload(_ bytes: [UInt8], into container: Container) async throws -> (digest: String, size: Int64) {
        let directory = container.uploadsDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("console-\(UUID().uuidString).part")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else {
            throw CloudError(.internalError, "Cannot store the upload")
        }
        return try await container.importAsset(from: file)
    }

    static func auditPlace(_ place: ConsolePlace) -> String {
        "\(place.container) \(place.environment.rawValue) \(place.databaseName)/\(place.zone)" + (place.actingAs.map { " as \($0)" } ?? "")
    }

    /// The image type of `data` by its first bytes; `nil` for anything else.
    static func imageType(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}
