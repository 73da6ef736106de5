import LocalCloud

/// The one line `foodpin` and `localcloud` print for a failure: `prefix: message`, never with an
/// empty message. Every error either CLI prints goes through here.
///
/// ```swift
/// FailureLine.text("foodpin list", "")   // "foodpin list: failed, and the error gave no message"
/// FailureLine.message(for: CloudError(.networkUnavailable, ""))   // "networkUnavailable (3): no details were given"
/// ```
///
/// A blank message once printed `foodpin list: ` and nothing else; the fallback keeps the line
/// saying that something failed and, where known, what kind of error it was.
public enum FailureLine {
    /// `prefix: message`, on one line, with a stand-in for a blank message.
    public static func text(_ prefix: String, _ message: String) -> String {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        let shown = line.allSatisfy(\.isWhitespace) ? "failed, and the error gave no message" : line
        return prefix.isEmpty ? shown : "\(prefix): \(shown)"
    }

    /// What any error says, never empty (see ``CloudError/readableMessage(for:)``).
    public static func message(for error: any Error) -> String {
        CloudError.readableMessage(for: error)
    }
}
