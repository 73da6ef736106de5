import Foundation
import LocalCloud
import Logging
import Mustache

/// The web console's parts that live as long as the server: its templates, the sign-in
/// throttle, the request journal and the store of administrators and sessions.
final class WebConsole: Sendable {
    let store: any ConsoleStore
    let journal: RequestJournal
    let throttle = SigninThrottle()
    let hasher: PasswordHasher
    let templates: MustacheLibrary
    /// Schemas and statistics until the next commit.
    let snapshots = ConsoleSnapshots()
    /// How long a console session lasts.
    let sessionLifetime: TimeInterval
    /// The container shown when the address names none.
    let defaultContainer: String

    /// The cluster's shared request log, when nodes share a database.
    let cluster: ClusterJournal?
    /// The server's clock: sessions' start and expiry, the sign-in throttle, audit times.
    let clock: WallClock

    init(store: any ConsoleStore, journal: RequestJournal, shared: (any SharedRequestLog)? = nil, logger: Logger,
         hasher: PasswordHasher, sessionLifetime: TimeInterval, defaultContainer: String, clock: WallClock = .system) {
        self.store = store
        self.clock = clock
        self.journal = journal
        cluster = shared.map { ClusterJournal(journal: journal, shared: $0, logger: logger) }
        self.hasher = hasher
        self.sessionLifetime = sessionLifetime
        self.defaultContainer = defaultContainer
        // The templates are compiled in and parsed by ConsoleTemplateTests: a failure here is a build defect,
        // and every page then says which template is missing rather than the server not starting.
        templates = (try? Self.library()) ?? MustacheLibrary()
    }

    /// The templates compiled into the binary, by name.
    static func library() throws -> MustacheLibrary {
        // Registered before the templates are parsed: their first line names it.
        MustacheContentTypes.register(ConsoleHTML(), named: ConsoleHTML.name)
        var library = MustacheLibrary()
        for (name, bytes) in ConsoleResources.templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        return library
    }

    /// A template rendered with `context`; every `{{value}}` is HTML-escaped by Mustache.
    func render(_ template: String, _ context: [String: Any]) throws -> String {
        guard let html = templates.render(context, withTemplate: template) else {
            throw CloudError(.internalError, "No console template '\(template)'")
        }
        return html
    }

    /// The request log's lines after `after` that pass `filter` (the newest `limit`, oldest first) and
    /// the newest sequence: the cluster's on a shared database, else this node's.
    func logLines(after: Int, limit: Int, filter: LogFilter) async throws -> (lines: [RequestJournal.Line], last: Int) {
        if let cluster { return try await cluster.shared.lines(after: after, limit: limit, filter: filter) }
        let lines = journal.lines(after: after, limit: limit, where: filter.matches)
        return (lines, max(after, journal.newestSequence))
    }

    /// The last hour, one entry per minute, and the push streams open now: the cluster's or this node's.
    func lastHour() async throws -> (minutes: [RequestJournal.Minute], openStreams: Int) {
        if let cluster { return try await cluster.lastHour() }
        return (journal.lastHour(), journal.openStreams)
    }

    /// Records a change in the audit log.
    func audit(_ admin: String, _ action: String, _ detail: String) async throws {
        try await store.appendAudit(AuditEntry(time: clock.now, admin: admin, action: action, detail: detail))
    }
}
