extension CloudError {
    /// ``message``, or "no details were given" when it is blank: what to show a person.
    public var readableMessage: String {
        message.allSatisfy(\.isWhitespace) ? "no details were given" : message
    }

    /// What any error says, never empty: a ``CloudError`` as `name (code): message`, another error
    /// as its description, or its type's name when that is blank.
    ///
    /// ```swift
    /// CloudError.readableMessage(for: CloudError(.networkUnavailable, ""))
    /// // "networkUnavailable (3): no details were given"
    /// ```
    public static func readableMessage(for error: any Error) -> String {
        if let error = error as? CloudError {
            return "\(error.code.name) (\(error.code.rawValue)): \(error.readableMessage)"
        }
        let description = String(describing: error)
        guard description.allSatisfy(\.isWhitespace) else { return description }
        return "\(String(reflecting: type(of: error))) with no message"
    }
}
