import Foundation

/// One change made through the console: who, what, when.
package struct AuditEntry: Sendable, Hashable {
    package var time: Date
    package var admin: String
    /// A short verb phrase: `schema.addField`, `records.save`, `tokens.revoke`, …
    package var action: String
    /// What it acted on, in words (never a secret).
    package var detail: String

    package init(time: Date, admin: String, action: String, detail: String) {
        self.time = time
        self.admin = admin
        self.action = action
        self.detail = detail
    }
}
