import LocalCloud
import PostgresNIO

/// How the server-state tables' PostgreSQL failures reach clients: a database that cannot be
/// reached (restarting, a dropped connection) is TRY_AGAIN_LATER with a retry hint, so clients
/// back off and retry; anything else is an internal error whose text names the call, not the SQL.
enum PostgresFailure {
    static let retryAfterSeconds = 2.0

    static func cloudError(_ error: any Error, while doing: String) -> CloudError {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
                var unavailable = CloudError(.serviceUnavailable, "The database is unavailable for \(doing); try again shortly")
                unavailable.retryAfterSeconds = retryAfterSeconds
                return unavailable
            default:
                if let sqlState = error.serverInfo?[.sqlState], sqlState.hasPrefix("57P") || sqlState.hasPrefix("08") {
                    // admin_shutdown, crash_shutdown, cannot_connect_now; connection exceptions.
                    var unavailable = CloudError(.serviceUnavailable, "The database is restarting; try again shortly")
                    unavailable.retryAfterSeconds = retryAfterSeconds
                    return unavailable
                }
                return CloudError(.internalError, "The database failed during \(doing) (\(error.serverInfo?[.sqlState] ?? "no SQLSTATE"))")
            }
        }
        if error is CancellationError { return CloudError(.operationCancelled, "Cancelled during \(doing)") }
        return CloudError(.internalError, "The database failed during \(doing)")
    }

    static func newerSchema(_ version: Int, known: Int, what: String) -> CloudError {
        CloudError(.incompatibleVersion,
                   "The database's \(what) tables are at version \(version), newer than this localcloud knows (\(known)); upgrade localcloud")
    }
}
