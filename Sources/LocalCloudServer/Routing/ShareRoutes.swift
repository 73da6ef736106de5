import Foundation
import Hummingbird
import LocalCloud

// records/resolve and records/accept (documented under the public database), and the share page.
extension CloudServer {
    /// The most short GUIDs one resolve or accept may carry.
    static let maximumShortGUIDs = 100

    func addShareRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .post, "records/resolve") { call in try await Self.resolve(call) }
        onDatabase(router, .post, "records/accept") { call in try await Self.accept(call) }
        router.get("share/:shortGUID") { _, context in
            try await self.sharePage(shortGUID: context.parameters.require("shortGUID"))
        }
    }

    /// One entry of `shortGUIDs`: `{value, shouldFetchRootRecord?, rootRecordDesiredKeys?}` (a bare string is accepted).
    struct ShortGUIDRequest {
        var value: String
        var fetchRoot: Bool
        var rootKeys: [String]?

        init(_ json: JSONValue) throws {
            if let text = json.stringValue {
                (value, fetchRoot, rootKeys) = (text, false, nil)
                return
            }
            guard let object = json.objectValue, let text = object["value"]?.stringValue else {
                throw ServerError(.badRequest, "each shortGUIDs entry needs a string 'value'")
            }
            value = text
            switch object["shouldFetchRootRecord"] {
            case nil, .null?: fetchRoot = false
            case .bool(let flag)?: fetchRoot = flag
            default: throw ServerError(.badRequest, "shouldFetchRootRecord must be a boolean")
            }
            switch object["rootRecordDesiredKeys"] {
            case nil, .null?: rootKeys = nil
            case .array(let keys)?:
                rootKeys = try keys.map { key in
                    guard let name = key.stringValue, FieldName.isValid(name) else {
                        throw ServerError(.badRequest, "rootRecordDesiredKeys must be field names")
                    }
                    return name
                }
            default: throw ServerError(.badRequest, "rootRecordDesiredKeys must be an array of field names")
            }
        }
    }

    static func shortGUIDs(_ call: DatabaseCall) throws -> [ShortGUIDRequest] {
        try call.requireUser("Resolving or accepting a share")
        return try call.array("shortGUIDs", max: maximumShortGUIDs).map(ShortGUIDRequest.init)
    }

    static func resolve(_ call: DatabaseCall) async throws -> JSONValue {
        var results: [JSONValue] = []
        for entry in try shortGUIDs(call) {
            do {
                let metadata = try await call.container.shareMetadata(
                    shortGUID: entry.value, shouldFetchRootRecord: entry.fetchRoot, rootRecordDesiredKeys: entry.rootKeys)
                results.append(metadataJSON(metadata, shortGUID: entry.value, call: call))
            } catch {
                results.append(shortGUIDError(entry.value, error))
            }
        }
        return .object(["results": .array(results)])
    }

    static func accept(_ call: DatabaseCall) async throws -> JSONValue {
        var results: [JSONValue] = []
        for entry in try shortGUIDs(call) {
            do {
                let share = try await call.container.acceptShare(shortGUID: entry.value)
                results.append(shareJSON(share, call: call))
            } catch {
                results.append(shortGUIDError(entry.value, error))
            }
        }
        return .object(["results": .array(results)])
    }

    /// A share record as this server names its URL.
    static func shareJSON(_ share: Share, call: DatabaseCall) -> JSONValue {
        share.setViewer(share.currentUserRecordName, urlBase: call.baseURL + "/share/")
        return share.webServicesJSON(assets: call.assets)
    }

    static func metadataJSON(_ metadata: Share.Metadata, shortGUID: String, call: DatabaseCall) -> JSONValue {
        var json: [String: JSONValue] = [
            "shortGUID": .string(shortGUID),
            "containerIdentifier": .string(metadata.containerIdentifier),
            "environment": .string(call.environment == .production ? "production" : "development"),
            "databaseScope": .string("SHARED"),
            "zoneID": metadata.share.recordID.zoneID.webServicesValue,
            "share": shareJSON(metadata.share, call: call),
            "participantType": .string(metadata.participantRole.webServicesName),
            "participantStatus": .string(metadata.participantStatus.webServicesName),
            "participantPermission": .string(metadata.participantPermission.webServicesName),
            "ownerIdentity": metadata.ownerIdentity.webServicesJSON,
        ]
        if let root = metadata.hierarchicalRootRecordID { json["rootRecordName"] = .string(root.recordName) }
        if let record = metadata.rootRecord { json["rootRecord"] = record.webServicesJSON(assets: call.assets) }
        return .object(json)
    }

    static func shortGUIDError(_ guid: String, _ error: any Error) -> JSONValue {
        let serverError = ServerError(wrapping: error)
        return .object([
            "shortGUID": .string(String(guid.prefix(64))), "reason": .string(serverError.reason),
            "serverErrorCode": .string(serverError.code.rawValue),
        ])
    }

    /// `GET /share/{shortGUID}`: what the share is and how to open it. Only a public share's
    /// title and owner are shown; a private one says no more than that a link exists.
    func sharePage(shortGUID: String) async throws -> Response {
        var summary: ShareSummary?
        if shortGUID.count == 22, Base64URL.decode(shortGUID)?.count == 16 {
            // Only containers opened since the server started: a page view must not create stores.
            for (identifier, environment) in registry.openedKeys() {
                guard let container = try? registry.container(identifier, environment: environment, user: nil) else { continue }
                if let found = try? await container.shareSummary(shortGUID: shortGUID) {
                    summary = found
                    break
                }
            }
        }
        guard let summary else {
            return Self.htmlResponse(Self.sharePageHTML(heading: "Share not found",
                body: "This share link is not known here: it was deleted, or the link is mistyped."), status: .notFound)
        }
        let url = "share/" + shortGUID
        var lines: [String] = []
        if let title = summary.title, let owner = summary.ownerName {
            lines.append("<p><b>\(Self.escapeHTML(title))</b>, shared by \(Self.escapeHTML(owner)) (\(summary.publicPermission == .readWrite ? "read-write" : "read-only")).</p>")
        } else {
            lines.append("<p>A private share: sign in as an invited user to see it.</p>")
        }
        lines.append("<p>Open it in FoodPin: <code>foodpin accept &lt;this page's URL&gt;</code> (the link ends in <code>\(Self.escapeHTML(url))</code>).</p>")
        return Self.htmlResponse(Self.sharePageHTML(heading: "A FoodPin share", body: lines.joined(separator: "\n")))
    }

    static func sharePageHTML(heading: String, body: String) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>\(escapeHTML(heading))</title>
        <meta name="robots" content="noindex"></head>
        <body style="font-family: sans-serif; max-width: 40em; margin: 3em auto"><h1>\(escapeHTML(heading))</h1>
        \(body)
        </body></html>
        """
    }

    static func escapeHTML(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}

