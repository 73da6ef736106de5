import Foundation
import Hummingbird
import LocalCloud

/// One authenticated call to `/database/1/{container}/{environment}/{database}/…`: the database
/// it acts on, as whom, and its parsed JSON body.
struct DatabaseCall: Sendable {
    var containerIdentifier: String
    var environment: Container.Environment
    var scope: Database.Scope
    var identity: RequestIdentity
    var container: Container
    var database: Database
    var body: JSONValue
    /// The body as sent: the response cache's key and the signature's input.
    var rawBody: [UInt8]
    /// `scheme://host:port` as the client reached the server, for URLs it returns.
    var baseURL: String
    var assets: AssetWireMapping

    /// The request's `zoneID` (the default zone when absent).
    func zoneID() throws -> RecordZone.ID {
        try DatabaseCallBody(body).zoneID()
    }

    /// `desiredKeys`: absent or null means every field.
    func desiredKeys(_ json: JSONValue? = nil) throws -> [String]? {
        try DatabaseCallBody(body).desiredKeys(json)
    }

    /// Writes and private data need a signed-in user (AUTHENTICATION_REQUIRED otherwise).
    func requireUser(_ what: String) throws {
        guard identity.userName == nil else { return }
        throw CloudError(.notAuthenticated, "\(what) needs a signed-in user: sign in and send ckWebAuthToken")
    }

    /// An array the body must have under `key`.
    func array(_ key: String, max: Int? = nil) throws -> [JSONValue] {
        try DatabaseCallBody(body).array(key, max: max)
    }
}

extension CloudServer {
    /// The path every database endpoint lives under.
    static let databasePath = "database/1/:container/:environment/:database"

    /// Registers a database endpoint: authenticates, opens the database as the caller, parses the
    /// body under the JSON limit, and writes the handler's JSON.
    ///
    /// A `cached` endpoint is a pure read: its response is kept until the next commit and answers
    /// `If-None-Match` with 304 (see ``ResponseCache``).
    func onDatabase(
        _ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ endpoint: String, cached: Bool = false,
        _ handler: @escaping @Sendable (DatabaseCall) async throws -> JSONValue
    ) {
        onDatabase(router, method, endpoint, cached: cached, writing: { call in try await handler(call).bytes })
    }

    /// As ``onDatabase(_:_:_:cached:_:)``, for a handler that writes its JSON body's bytes itself.
    func onDatabase(
        _ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ endpoint: String, cached: Bool = false,
        writing handler: @escaping @Sendable (DatabaseCall) async throws -> [UInt8]
    ) {
        router.on(RouterPath("\(Self.databasePath)/\(endpoint)"), method: method) { request, context in
            // A cached endpoint parses its body only on a miss: a hit is keyed by the bytes as sent.
            let call = try await self.databaseCall(request, context: context, parsesBody: !cached)
            do {
                if call.scope != .public { try call.requireUser("The \(call.scope) database") }
                guard cached else { return Self.jsonResponse(try await handler(call)) }
                return try await self.cachedResponse(call, endpoint: endpoint, ifNoneMatch: request.headers[.ifNoneMatch]) {
                    var parsed = call
                    parsed.body = try Self.parseBody(call.rawBody, method: request.method)
                    return try await handler(parsed)
                }
            } catch let error as CloudError where error.code == .notAuthenticated {
                // A write or private read without a user: tell the client where to sign in.
                var serverError = ServerError(error)
                serverError.redirectURL = "\(call.baseURL)/auth/1/\(call.containerIdentifier)/signin"
                throw serverError
            }
        }
    }

    func cachedResponse(_ call: DatabaseCall, endpoint: String, ifNoneMatch: String?,
                        compute: () async throws -> [UInt8]) async throws -> Response {
        let key = ResponseCache.Key(container: call.containerIdentifier, environment: call.environment, scope: call.scope,
                                    user: call.identity.userName, endpoint: endpoint, body: call.rawBody)
        let stamp = try await call.container.changeStamp()
        let entry: ResponseCache.Entry
        if let hit = responses.entry(key, stamp: stamp) {
            entry = hit
        } else {
            entry = responses.store(key, stamp: stamp, bytes: try await compute())
        }
        if ifNoneMatch == entry.etag {
            return Response(status: .notModified, headers: [.eTag: entry.etag])
        }
        return Response(status: .ok, headers: [.contentType: Self.jsonContentType, .eTag: entry.etag],
                        body: .init(byteBuffer: entry.buffer))
    }

    /// The call a request makes; with `parsesBody` false its `body` is left `.null` for the caller to parse.
    func databaseCall(_ request: Request, context: ServerRequestContext, parsesBody: Bool = true) async throws -> DatabaseCall {
        let containerIdentifier = try context.parameters.require("container")
        try StoreRegistry.validate(containerIdentifier: containerIdentifier)
        let environment = try Self.environment(context.parameters.require("environment"))
        let scope: Database.Scope
        switch try context.parameters.require("database") {
        case "public": scope = .public
        case "private": scope = .private
        case "shared": scope = .shared
        case let other: throw ServerError(.badRequest, "Unknown database '\(other.prefix(40))': use public, private or shared")
        }
        let bytes = try await collectBody(request, limit: configuration.maxJSONBytes)
        let identity = try await authenticate(request, containerIdentifier: containerIdentifier, environment: environment, body: bytes)
        let body = parsesBody ? try Self.parseBody(bytes, method: request.method) : .null
        let container = try registry.container(containerIdentifier, environment: environment, user: identity.userName)
        let baseURL = Self.baseURL(request, scheme: configuration.scheme)
        let assets = await assetMapping(container: container, baseURL: baseURL, containerIdentifier: containerIdentifier,
                                        environment: environment, body: body)
        return DatabaseCall(
            containerIdentifier: containerIdentifier, environment: environment, scope: scope, identity: identity,
            container: container, database: container.database(with: scope), body: body, rawBody: bytes,
            baseURL: baseURL, assets: assets)
    }

    /// A database call's body: a JSON object (an empty body is `{}`).
    static func parseBody(_ bytes: [UInt8], method: HTTPRequest.Method) throws -> JSONValue {
        let body: JSONValue
        do {
            body = try JSONValue.parse(bytes)
        } catch {
            throw ServerError(.badRequest, "The request body is not valid JSON")
        }
        guard method == .get || body.objectValue != nil else {
            throw ServerError(.badRequest, "The request body must be a JSON object")
        }
        return body
    }

    func authenticate(_ request: Request, containerIdentifier: String, environment: Container.Environment,
                      body: [UInt8]) async throws -> RequestIdentity {
        let identity = try await authenticator.authenticate(authenticationRequest(request, containerIdentifier: containerIdentifier,
                                                                                  environment: environment, body: body))
        RequestNote.current?.setUser(identity.userName)
        return identity
    }

    /// The credentials a request presents, as the authenticator reads them.
    func authenticationRequest(_ request: Request, containerIdentifier: String, environment: Container.Environment,
                               body: [UInt8]) -> AuthenticationRequest {
        let query = request.uri.queryParameters
        let auth = AuthenticationRequest(
            containerIdentifier: containerIdentifier, environment: environment,
            apiToken: query["ckAPIToken"].map(String.init), webAuthToken: query["ckWebAuthToken"].map(String.init),
            keyID: Self.header(request, "X-Apple-CloudKit-Request-KeyID"),
            isoDate: Self.header(request, "X-Apple-CloudKit-Request-ISO8601Date"),
            signature: Self.header(request, "X-Apple-CloudKit-Request-SignatureV1"),
            subpath: request.uri.path, body: body)
        return auth
    }

    static func header(_ request: Request, _ name: String) -> String? {
        let canonical = name.lowercased()
        return request.headers.first { $0.name.canonicalName == canonical }?.value
    }

    static func environment(_ name: String) throws -> Container.Environment {
        switch name {
        case "development": .development
        case "production": .production
        default: throw ServerError(.badRequest, "Unknown environment: use development or production")
        }
    }

    /// The body, refused with QUOTA_EXCEEDED past `limit` bytes.
    func collectBody(_ request: Request, limit: Int) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw ServerError(.quotaExceeded, "The request body is larger than \(limit) bytes")
        }
    }

    /// `scheme://host[:port]` from the Host header, when it is a plain host name; else the bind address.
    static func baseURL(_ request: Request, scheme: String) -> String {
        let host = request.head.authority ?? ""
        let plain = !host.isEmpty && host.utf8.count < 256 && host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        }
        return "\(scheme)://\(plain ? host : "localhost")"
    }
}
