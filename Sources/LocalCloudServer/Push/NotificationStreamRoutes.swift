import Foundation
import Hummingbird
import LocalCloud
import NIOCore
import ServiceLifecycle
import Synchronization

// GET /database/1/{container}/{environment}/notifications: the signed-in user's notifications as
// server-sent events.
extension CloudServer {
    /// A comment line this often keeps proxies from closing an idle stream (and finds dead clients).
    static let heartbeatInterval: Duration = .seconds(15)

    func addNotificationStreamRoutes(to router: Router<ServerRequestContext>) {
        router.get("database/1/:container/:environment/notifications") { request, context in
            try await self.notificationStream(request, context: context)
        }
    }

    /// `text/event-stream`: one event per notification, `id` its ``NotificationCursor`` and `data`
    /// CloudKit's push payload (the `ck` dictionary). `Last-Event-ID` resumes after that event; when
    /// the change log was compacted past it, an `event: reset` first tells the client to fetch changes.
    ///
    /// The stream ends when the client goes away, when the request's task is cancelled, on a
    /// graceful shutdown (so SIGTERM does not wait for streams that never end), and when the user
    /// signs out or the stream's token expires or is revoked (``PushSessions``): then an
    /// `event: signedOut` says so before the stream closes, and the client should not reconnect
    /// without signing in again.
    func notificationStream(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (container, _, _, session) = try await pushContainer(request, context: context)
        var cursor: NotificationCursor?
        if let lastEventID = Self.header(request, "Last-Event-ID") ?? request.uri.queryParameters["lastEventID"].map(String.init),
           !lastEventID.isEmpty {
            guard let parsed = NotificationCursor(text: lastEventID) else {
                throw ServerError(.badRequest, "Last-Event-ID must be an event id this stream sent")
            }
            cursor = parsed
        }
        // Compacted past the client's last event: say so, so it fetches changes to catch up.
        // (In a task of its own, like the feed's first read: this task lives as long as the stream.)
        let expired = if let cursor { try await !Task { try await container.changeLogIsComplete(afterSequence: cursor.sequence) }.value }
            else { false }
        // Opened before the response starts: a save made once the client sees the stream is in it.
        let feed = try await NotificationFeed(container: container, after: cursor)
        let heartbeat = Self.heartbeatInterval
        let body = ResponseBody { writer in
            enum Item: Sendable {
                case event(NotificationCursor, LocalCloud.Notification)
                case heartbeat
            }
            let (items, continuation) = AsyncStream.makeStream(of: Item.self)
            // Straight into this stream: one task and one buffer per event between the watcher and the socket.
            let feeder = Task {
                await feed.forward { cursor, notification in continuation.yield(.event(cursor, notification)) }
                continuation.finish()
            }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    continuation.yield(.heartbeat)
                }
            }
            let sessions = self.pushSessions
            let ended = Mutex(false)
            let watchID = sessions.watch(session) {
                ended.withLock { $0 = true }
                continuation.finish()
            }
            defer {
                sessions.unwatch(session, id: watchID)
                feeder.cancel()
                ticker.cancel()
            }
            try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n"))
            if expired {
                var bytes = Array("event: reset\ndata: ".utf8)
                JSONValue.object(["reason": .string(
                    "Changes after Last-Event-ID were compacted away: fetch changes (changes/database, changes/zone, records/changes) to catch up"),
                ]).write(into: &bytes)
                bytes.append(contentsOf: "\n\n".utf8)
                try await writer.write(ByteBuffer(bytes: bytes))
            }
            try await withGracefulShutdownHandler {
                for await item in items {
                    switch item {
                    case .event(let cursor, let notification):
                        var bytes = Array("id: \(cursor)\ndata: ".utf8)
                        notification.webServicesPayload.write(into: &bytes)
                        bytes.append(contentsOf: "\n\n".utf8)
                        try await writer.write(ByteBuffer(bytes: bytes))
                    case .heartbeat:
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    }
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            if ended.withLock({ $0 }) {
                try await writer.write(ByteBuffer(string: "event: signedOut\ndata: {\"reason\":\"The session ended: signed out, expired or revoked\"}\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// The container as the request's signed-in user, for the push endpoints (no database segment),
    /// and the request body (read once, under the JSON limit).
    /// - Throws: AUTHENTICATION_REQUIRED (with the sign-in `redirectURL`) without a user.
    func pushContainer(_ request: Request, context: ServerRequestContext) async throws
        -> (Container, user: String, body: [UInt8], session: PushSession) {
        let containerIdentifier = try context.parameters.require("container")
        try StoreRegistry.validate(containerIdentifier: containerIdentifier)
        let environment = try Self.environment(context.parameters.require("environment"))
        let bytes = request.method == .get ? [] : try await collectBody(request, limit: configuration.maxJSONBytes)
        let credentials = authenticationRequest(request, containerIdentifier: containerIdentifier, environment: environment, body: bytes)
        let identity = try await authenticator.authenticate(credentials)
        RequestNote.current?.setUser(identity.userName)
        guard let user = identity.userName else {
            throw ServerError(.authenticationRequired, "Notifications need a signed-in user: sign in and send ckWebAuthToken",
                              redirectURL: "\(Self.baseURL(request, scheme: configuration.scheme))/auth/1/\(containerIdentifier)/signin")
        }
        return (try registry.container(containerIdentifier, environment: environment, user: user), user, bytes, credentials.pushSession)
    }
}
