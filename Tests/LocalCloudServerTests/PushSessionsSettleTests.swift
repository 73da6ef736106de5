import Foundation
import LocalCloud
import Logging
import Synchronization
import Testing
@testable import LocalCloudServer

/// Another process's sign-out is heard at its first WAL write, before SQLite publishes the commit:
/// the check at that ring can still read the session live. Nothing rings again, so without a later
/// look the stream stayed open after the sign-out (a CI run's `remote.sh`).
@Suite struct PushSessionsSettleTests {
    /// Answers "live" until revoked; the first check after the revocation still reads it live,
    /// as a read made between a commit's WAL writes and its publication does.
    final class ReadsMidCommit: RequestAuthenticator {
        private let state = Mutex((revoked: false, staleReadsLeft: 0, checks: 0))
        let changes = CredentialChanges()
        var credentialChanges: CredentialChanges? { changes }

        func authenticate(_ request: AuthenticationRequest) async throws -> RequestIdentity {
            throw CloudError(.notAuthenticated, "not used")
        }

        func liveUntil(_ session: PushSession) async throws -> Date? {
            state.withLock { state in
                state.checks += 1
                if state.revoked && state.staleReadsLeft == 0 { return nil }
                if state.revoked { state.staleReadsLeft -= 1 }
                return .distantFuture
            }
        }

        /// Revoked in the store; the change is heard at once, and the next check reads it stale.
        func signOutHeardMidCommit() {
            state.withLock { $0 = (true, 1, $0.checks) }
            changes.fire()
        }

        var checks: Int { state.withLock { $0.checks } }
    }

    @Test func aSignOutReadLiveAtItsRingIsCheckedAgainAndEndsPush() async throws {
        let authenticator = ReadsMidCommit()
        let sessions = PushSessions(authenticator: authenticator, logger: Logger(label: "test"))
        let ended = Mutex(false)
        let session = PushSession(container: "iCloud.A", environment: .development, apiTokenDigest: "a", webAuthTokenDigest: "w")
        let id = sessions.watch(session) { ended.withLock { $0 = true } }
        defer { sessions.unwatch(session, id: id) }
        #expect(await eventually { authenticator.checks >= 1 }, "the first check, at watch")

        authenticator.signOutHeardMidCommit()
        #expect(await eventually(timeout: .seconds(30)) { ended.withLock { $0 } },
                "push ends with no further ring (\(authenticator.checks) checks)")
        #expect(authenticator.checks >= 3, "the check at the ring read it live; a later one did not")
    }
}
