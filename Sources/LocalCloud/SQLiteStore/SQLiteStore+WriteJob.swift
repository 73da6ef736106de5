import GRDB

extension SQLiteStore {
    /// A write waiting for its turn in the ``WriteBatcher``.
    struct WriteJob: Sendable {
        /// Runs the write in the open transaction and keeps its own result; never throws.
        let run: @Sendable (GRDB.Database) -> Void
        /// Replaces the result when the batch's transaction failed as a whole.
        let fail: @Sendable (any Error) -> Void
    }
}
