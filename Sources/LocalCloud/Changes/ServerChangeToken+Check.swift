extension ServerChangeToken {
    /// Checks that a change log whose identity is `epoch` and whose oldest kept position is `floor`
    /// can still answer this token, as every store must before reading changes after it.
    ///
    /// - Throws: `changeTokenExpired` for a token from another database or older than a compaction.
    package func check(epoch: String, floor: Int64) throws {
        guard self.epoch == epoch else {
            throw CloudError(.changeTokenExpired, "The change token is from another database; fetch again without a token")
        }
        guard sequence >= floor else {
            throw CloudError(.changeTokenExpired,
                             "The change log was compacted past this token (\(sequence) < \(floor)); fetch again without a token")
        }
    }
}
