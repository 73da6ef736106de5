import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// tokens/create, tokens/register (no database segment), and the webcourier long-poll they point to.
extension CloudServer {
    /// How long a webcourier poll waits for a notification before answering 204; `?timeout=` (seconds) can shorten it.
    static let longPollTimeout: Duration = .seconds(30)

    func addTokenRoutes(to router: Router<ServerRequestContext>) {
        // CloudKit JS calls /device/1/…; the reference prints /database/1/…: serve both.
        for service in ["device", "database"] {
            router.post("\(service)/1/:container/:environment/tokens/create") { request, context in
                try await self.createToken(request, context: context)
            }
            router.post("\(service)/1/:container/:environment/tokens/register") { request, context in
                try await self.registerToken(request, context: context)
            }
        }
        // The token rides in the query string, which the request log leaves out: tokens are never logged.
        router.get("device/1/:container/:environment/webcourier") { request, context in
            try await self.webcourierPoll(request, context: context)
        }
    }

    /// `{apnsEnvironment}` → `{apnsEnvironment, apnsToken, webcourierURL}` for the signed-in user.
    func createToken(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (body, claims) = try await tokenRequest(request, context: context)
        let apnsEnvironment = try Self.apnsEnvironment(body)
        var issued = claims
        issued.apnsEnvironment = apnsEnvironment
        // Notifications from now on reach the token, even those before its first poll.
        let container = try registry.container(claims.container, environment: claims.environment, user: claims.user)
        issued.startSequence = try await container.currentChangeToken().changeSequence
        let token = try await state.push().issue(issued, at: authenticator.clock.now)
        return Self.jsonResponse(tokenJSON(token, claims: issued, request: request).bytes)
    }

    /// `{apnsToken, apnsEnvironment}`: checks the token is this server's and the caller's.
    func registerToken(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (body, caller) = try await tokenRequest(request, context: context)
        guard let token = body["apnsToken"]?.stringValue else { throw ServerError(.badRequest, "'apnsToken' is missing") }
        let claims = try await state.push().verify(token)
        guard claims.container == caller.container, claims.environment == caller.environment, claims.user == caller.user else {
            throw ServerError(.accessDenied, "apnsToken was issued to another user, container or environment")
        }
        _ = try Self.apnsEnvironment(body)
        return Self.jsonResponse(tokenJSON(token, claims: claims, request: request).bytes)
    }

    /// The next notification for the token's user as CloudKit's push payload (200), or 204 when
    /// none came within the timeout. The token is the credential: it names its user and is signed.
    /// It delivers only while the sign-in it was made with is live: after a sign-out, or once that
    /// web auth token expired or was revoked, a poll (even one waiting) answers AUTHENTICATION_FAILED.
    func webcourierPoll(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard let token = request.uri.queryParameters["apnsToken"].map(String.init), !token.isEmpty else {
            throw ServerError(.badRequest, "apnsToken is missing: use the webcourierURL tokens/create returned")
        }
        let tokens = try await state.push()
        let claims = try tokens.verify(token)
        let environment = try Self.environment(context.parameters.require("environment"))
        guard claims.container == (try context.parameters.require("container")), claims.environment == environment else {
            throw ServerError(.badRequest, "This webcourier URL belongs to another container or environment")
        }
        guard let session = claims.session, try await authenticator.isLive(session) else {
            throw ServerError(.authenticationFailed, "This push token has ended (signed out, expired or revoked): sign in and create a new one")
        }
        var timeout = Self.longPollTimeout
        if let text = request.uri.queryParameters["timeout"] {
            guard let seconds = Double(String(text)), seconds >= 0, seconds <= 30 else {
                throw ServerError(.badRequest, "timeout must be a number of seconds from 0 to 30")
            }
            timeout = .milliseconds(Int64(seconds * 1000))
        }
        let container = try registry.container(claims.container, environment: environment, user: claims.user)
        // Later polls continue from what was delivered; the first from when the token was made.
        let stored = try await tokens.cursors.cursor(for: token)
        let start = stored ?? claims.startSequence.map { NotificationCursor(sequence: $0, delivered: Int.max / 2) }
        let feed = try await NotificationFeed(container: container, after: start)
        if stored == nil { try await tokens.cursors.set(feed.start, for: token) }
        let wait = timeout
        // Ends the wait when the session ends meanwhile.
        let (endings, ending) = AsyncStream.makeStream(of: Void.self)
        let watchID = pushSessions.watch(session) {
            ending.yield()
            ending.finish()
        }
        defer { pushSessions.unwatch(session, id: watchID) }
        enum Outcome: Sendable {
            case event(NotificationCursor, LocalCloud.Notification)
            case timedOut
            case ended
        }
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await (cursor, notification) in feed.events() { return .event(cursor, notification) }
                return .timedOut
            }
            group.addTask {
                try? await Task.sleep(for: wait)
                return .timedOut
            }
            group.addTask {
                for await _ in endings { return .ended }
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        ending.finish()
        let cursor: NotificationCursor
        let notification: LocalCloud.Notification
        switch outcome {
        case .event(let eventCursor, let eventNotification): (cursor, notification) = (eventCursor, eventNotification)
        case .timedOut: return Response(status: .noContent)
        case .ended:
            throw ServerError(.authenticationFailed, "This push token has ended (signed out, expired or revoked): sign in and create a new one")
        }
        try await tokens.cursors.set(cursor, for: token)
        return Self.jsonResponse(notification.webServicesPayload.bytes)
    }

    private func tokenRequest(_ request: Request, context: ServerRequestContext) async throws -> (JSONValue, PushTokens.Claims) {
        let containerIdentifier = try context.parameters.require("container")
        let environment = try Self.environment(context.parameters.require("environment"))
        let (_, user, bytes, session) = try await pushContainer(request, context: context)
        let body: JSONValue
        do {
            body = try JSONValue.parse(bytes)
        } catch {
            throw ServerError(.badRequest, "The request body is not valid JSON")
        }
        guard body.objectValue != nil else { throw ServerError(.badRequest, "The request body must be a JSON object") }
        return (body, PushTokens.Claims(container: containerIdentifier, environment: environment, user: user, apnsEnvironment: "development",
                                        session: session))
    }

    private static func apnsEnvironment(_ body: JSONValue) throws -> String {
        switch body["apnsEnvironment"] {
        case nil, .null?: return "development"
        case .string("development")?: return "development"
        case .string("production")?: return "production"
        default: throw ServerError(.badRequest, "apnsEnvironment must be development or production")
        }
    }

    private func tokenJSON(_ token: String, claims: PushTokens.Claims, request: Request) -> JSONValue {
        let environment = claims.environment == .production ? "production" : "development"
        let base = Self.baseURL(request, scheme: configuration.scheme)
        return .object([
            "apnsEnvironment": .string(claims.apnsEnvironment), "apnsToken": .string(token),
            "webcourierURL": .string("\(base)/device/1/\(claims.container)/\(environment)/webcourier?apnsToken=\(token)"),
        ])
    }
}
