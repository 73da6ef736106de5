import Foundation
import LocalCloud

/// Where the web console keeps its administrators, their sessions and the audit log: the data
/// directory's `console.sqlite`, or the shared PostgreSQL database (so a session signed out on
/// one node is signed out on every node).
///
/// Console administrators are not app users: they belong to the server, not to a container.
/// Passwords are stored as bcrypt hashes and session tokens as SHA-256 digests; making and
/// checking them lives once, in `ConsoleStore+Credentials.swift`.
///
/// ```swift
/// let store = SQLiteConsoleStore(dataDirectory: dataDir)
/// try await store.addAdmin("root", password: "s3cret")
/// ```
package protocol ConsoleStore: Sendable {
    // MARK: Administrators

    /// - Throws: `CloudError(.constraintViolation)` when the name is taken.
    func insertAdmin(_ admin: ConsoleAdmin, passwordHash: String) async throws
    /// Every administrator, by name.
    func admins() async throws -> [ConsoleAdmin]
    /// The bcrypt hash of the administrator's password; `nil` for no such administrator.
    func adminPasswordHash(_ name: String) async throws -> String?
    /// Removes the administrator and ends its sessions; `false` when there was none.
    func deleteAdmin(_ name: String) async throws -> Bool

    // MARK: Sessions

    func insertSession(_ session: ConsoleSession) async throws
    /// The session with this digest, ended or expired or not.
    func session(digest: String) async throws -> ConsoleSession?
    /// Marks the session ended.
    func endSession(digest: String, at date: Date) async throws

    // MARK: Audit log

    func appendAudit(_ entry: AuditEntry) async throws
    /// The newest entries first.
    func auditEntries(limit: Int) async throws -> [AuditEntry]
}
