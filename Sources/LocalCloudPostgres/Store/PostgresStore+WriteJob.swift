import LocalCloud
import Logging
import PostgresNIO

extension PostgresStore {
    /// A modify waiting for its turn in the store's ``WriteBatcher``.
    struct WriteJob: Sendable {
        /// Runs the modify in the batch's open transaction and keeps its own result; its change-log
        /// rows, or `nil` to roll its work back. Never throws.
        let run: @Sendable (PostgresConnection, Logger) async -> ChangeLogBatch?
        /// Replaces the result when the batch's transaction failed as a whole.
        let fail: @Sendable (any Error) -> Void
        /// The modify as one new record the batch may insert with others in one statement.
        var newRecord: NewRecord? = nil
    }
}
