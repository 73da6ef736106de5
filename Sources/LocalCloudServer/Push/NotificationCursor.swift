import LocalCloud

/// Where a push stream stands: the change-log sequence of the last notification delivered, and how
/// many notifications of that same change were delivered (one change can fire several subscriptions).
///
/// ```swift
/// NotificationCursor(text: "42")     // the first notification of change 42 was delivered
/// NotificationCursor(text: "42.2")   // the first two were
/// ```
///
/// Its text is the SSE event `id` (and what `Last-Event-ID` sends back): the change-log sequence,
/// with `.count` only when a change fired more than one notification.
package struct NotificationCursor: Sendable, Hashable, CustomStringConvertible {
    var sequence: Int64
    var delivered: Int

    init(sequence: Int64, delivered: Int) {
        self.sequence = sequence
        self.delivered = delivered
    }

    /// - Returns: `nil` for text that is not `SEQ` or `SEQ.COUNT` with a positive count.
    package init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let sequence = Int64(parts[0]), sequence >= 0 else { return nil }
        let delivered = parts.count == 2 ? Int(parts[1]) : 1
        guard let delivered, delivered >= 1 else { return nil }
        self.init(sequence: sequence, delivered: delivered)
    }

    package var description: String { delivered == 1 ? "\(sequence)" : "\(sequence).\(delivered)" }

    /// The cursor once `notification` is delivered too.
    func advanced(past notification: LocalCloud.Notification) -> NotificationCursor {
        notification.changeSequence == sequence
            ? NotificationCursor(sequence: sequence, delivered: delivered + 1)
            : NotificationCursor(sequence: notification.changeSequence, delivered: 1)
    }
}
