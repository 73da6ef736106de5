/// Why the interactive screen could not start or had to stop.
struct TerminalError: Error, CustomStringConvertible {
    /// An extensible set of reasons, so callers can `catch` by code.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
        static let notATerminal = Code(rawValue: "notATerminal")
        static let cannotStart = Code(rawValue: "cannotStart")
        static let systemCall = Code(rawValue: "systemCall")
        var description: String { rawValue }
    }

    let code: Code
    let message: String

    var description: String { message }
}
