import Foundation
import LocalCloud
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

    init(store: any ConsoleStore, journal: RequestJournal, hasher: PasswordHasher, sessionLifetime: TimeInterval,
         defaultContainer: String) {
        self.store = store
        self.journal = journal
        self.hasher = hasher
        self.sessionLifetime = sessionLifetime
        self.defaultContainer = defaultContainer
        // The templates are compiled in and parsed by ConsoleTemplateTests: a failure here is a build defect,
        // and every page then says which template is missing rather than the server not starting.
        templates = (try? Self.library()) ?? MustacheLibrary()
    }

    /// The templates compiled into the binary, by name.
    static func library() throws -> MustacheLibrary {
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

    /// Records a change in the audit log.
    func audit(_ admin: String, _ action: String, _ detail: String) async throws {
        try await store.appendAudit(AuditEntry(time: Date(), admin: admin, action: action, detail: detail))
    }
}
